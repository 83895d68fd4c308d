// Alert to first diagnosis, one alert at a time: the webhook is posted and the clock stops at the
// first reply in the alert's new thread. Shared by the alert benchmarks.

import { alertmanagerBody } from "../src/sim/alertmanager.js";
import { type BenchBots, CHANNEL, timed } from "./_bot-setup.js";

export interface TimedAlert {
  /** The table as the alert's `table` label carries it, e.g. iceberg.db.events. */
  table: string;
  /** The table as the bot names its incident, e.g. db.events. */
  incidentTable: string;
  labels?: Record<string, string>;
}

/** Milliseconds from posting alert number `n` to its diagnosis; the incident is closed after. */
export async function alertToFirstDiagnosis(bench: BenchBots, alert: TimedAlert, n: number): Promise<number> {
  const bot = bench.bots[0]!;
  // The first reply in a thread that did not exist before this alert is its diagnosis (earlier
  // incidents keep posting their proposals, so a plain reply count would be fooled).
  const messages = () => bench.standIn.messages(CHANNEL);
  const oldRoots = new Set(messages().map((m) => m.ts));
  const diagnosed = () => messages().some((m) => m.thread_ts !== undefined && !oldRoots.has(m.thread_ts));
  const body = alertmanagerBody([
    {
      table: alert.table,
      labels: alert.labels,
      startsAtMs: Date.now() - n * 1000,
      fingerprint: `bench${n.toString().padStart(11, "0")}`,
    },
  ]);
  const elapsed = await timed(async () => {
    const response = await fetch(`http://127.0.0.1:${bot.port}/webhooks/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${bench.webhookToken}` },
      body,
    });
    if (response.status !== 202) throw new Error(`webhook answered ${response.status}`);
    const deadline = Date.now() + 60_000;
    while (!diagnosed()) {
      if (Date.now() > deadline) throw new Error("no diagnosis was posted within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  // Close the incident so the next alert opens a fresh one and runs a fresh diagnosis.
  const incident = await bot.store.openIncidentFor(alert.incidentTable);
  if (incident) await bot.store.close(incident, "resolved", Date.now());
  return elapsed;
}
