// The failover drill both topologies run: two bot processes (receivers and workers) on the given
// REDIS_URL; an incident's walk open with a follow-up scheduled; then an alert storm about 40
// tables to both receivers, and the primary serving the bot's keys killed a third of the way in.
// Every alert must end acknowledged (after retries of the 5xx answers the failover causes) and
// landed once; one thread per table; nothing posted twice; readiness says 503 meanwhile and names
// the new primary after; the walk's delayed follow-up runs after the failover.
import { Queue } from "bullmq";
import { expect } from "vitest";
import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";
import { createRedisClient } from "../../src/adapters/redis/connection.js";
import { diagnoseTable } from "../../src/services/diagnose-table.js";
import type { DiagnoseFn } from "../../src/services/incident/deps.js";
import { approveStep } from "../../src/sim/slack/person.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  fixtureReport,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
  WEBHOOK_TOKEN,
} from "../integration/bot/harness.js";
import { HANG_MS } from "../support/poll.js";
import { type DrillFigures, deliverAll, duplicatedMessages, formatFigures } from "./drill-report.js";

export interface FailoverDrill {
  label: string;
  topology: "sentinel" | "cluster";
  url: string;
  /** host:port of the primary serving the bot's store keys now. */
  primary(harness: Harness): Promise<string>;
  /** Kills that primary (SIGKILL: nothing flushed, nothing handed over). */
  killPrimary(harness: Harness): Promise<void> | void;
}

const ALICE = "U0ALICE";
const TABLES = Array.from({ length: 40 }, (_, i) => `db.storm${i}`);
const ALERTS_PER_TABLE = 5;
const BOT_CONFIG = `
defaults:
  approvers: [${ALICE}]
  followUp: { intervalSeconds: 60, checks: 3 }
tables:
  db.events:
    flinkJobName: events-ingest
`;

// The walked table gets the real diagnosis (it proposes a playbook step); storm tables a fixed one.
const playbooks = loadPlaybooks();
const diagnose: DiagnoseFn = async (ports, request, now) => {
  if (request.table === "db.events") {
    return diagnoseTable(ports, request, now, { playbooks: (await playbooks).playbooks });
  }
  return { report: fixtureReport(request.table, now()) };
};

const thread = (harness: Harness, ts: string) =>
  harness.standIn
    .thread(CHANNEL, ts)
    .map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`)
    .join("\n");
const rootOf = (harness: Harness, table: string) =>
  harness.standIn
    .messages(CHANNEL)
    .filter((m) => !m.thread_ts && !m.ephemeralUser && m.text.includes(table))
    .find((m) => new RegExp(`${table.replace(".", "\\.")}([^\\w]|$)`).test(m.text));

export async function runFailoverDrill(drill: FailoverDrill): Promise<DrillFigures> {
  const h = await startHarness(drill.label, {
    bots: 2,
    scenario: "competing-appends",
    botConfig: BOT_CONFIG,
    env: { REDIS_URL: drill.url },
    botOptions: {
      diagnose,
      concurrency: { diagnose: 8, slack: 8 },
      // Production's retry pacing (1 s, doubling): a job due during the outage outlives it.
      backoffMs: 1000,
      remediation: { followUpIntervalMs: 10_000, diagnosisWaitMs: 5000 },
    },
  });
  const inspectors: Array<{ disconnect(): void }> = [];
  try {
    return await drillOn(h, drill, inspectors);
  } finally {
    await h.close().catch(() => {});
    for (const c of inspectors) c.disconnect();
  }
}

async function drillOn(
  harness: Harness,
  drill: FailoverDrill,
  inspectors: Array<{ disconnect(): void }>,
): Promise<DrillFigures> {
  const bot = harness.bots[0]!;
  const primaryBefore = await drill.primary(harness);
  const ready = (await (await fetch(harness.url("/readyz", 1))).json()) as Record<string, unknown>;
  expect(ready).toMatchObject({ ok: true, topology: drill.topology, primary: await drill.primary(harness) });

  // 1. An open walk: the alert, the proposal, an approval through Slack, the change applied.
  const fired = await postAlert(
    harness,
    alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
  );
  expect(fired.status).toBe(202);
  const rootTs = await eventually(() => {
    const root = rootOf(harness, "db.events");
    if (!root) return undefined;
    // The proposal is a reply; the root card carries a copy of its button too.
    const proposed = harness.standIn
      .thread(CHANNEL, root.ts)
      .some((m) => m.ts !== root.ts && JSON.stringify(m.blocks).includes("playbook_apply"));
    return proposed ? root.ts : undefined;
  }, "the proposal");
  await approveStep(
    {
      botUrl: harness.url("/slack/events"),
      signingSecret: harness.secret,
      standIn: harness.standIn,
      channel: CHANNEL,
      user: ALICE,
    },
    rootTs,
    "retries are at the default while Spark appends",
  );
  await eventually(() => /Applied by/.test(thread(harness, rootTs)), "the applied proposal");
  const inspect = createRedisClient(drill.url, "commands");
  inspectors.push(inspect);
  const remediationQueue = new Queue(`${harness.scope.queueNames.diagnose}-remediation`, {
    connection: inspect,
    prefix: harness.scope.queuePrefix,
  });
  remediationQueue.on("error", () => {});
  const delayedBefore = await eventually(async () => {
    const jobs = await remediationQueue.getDelayed();
    return jobs.some((j) => j.data.kind === "check") ? jobs.map((j) => j.id) : undefined;
  }, "the delayed follow-up");

  // 2. The storm: 40 tables x 5 alerts, alternating receivers; the primary dies a third of the way in.
  const deliveries = TABLES.flatMap((table, t) =>
    Array.from({ length: ALERTS_PER_TABLE }, (_, k) => ({
      url: harness.url("/webhooks/alertmanager", (t + k) % 2),
      body: alertmanagerBody([
        { table, fingerprint: `drill${t.toString().padStart(4, "0")}${k.toString().padStart(6, "0")}` },
      ]),
      token: WEBHOOK_TOKEN,
    })),
  );
  let killedAt = 0;
  const startedAt = Date.now();
  // What a Kubernetes readiness probe sees meanwhile: 503 while no primary takes writes.
  const readiness: number[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      if (killedAt) {
        const status = await fetch(harness.url("/readyz", 1), { signal: AbortSignal.timeout(3000) }).then(
          (r) => r.status,
          () => 0,
        );
        readiness.push(status);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const outcome = await deliverAll(deliveries, {
    concurrency: 8,
    deadlineMs: HANG_MS,
    retryDelayMs: 250,
    onAcknowledged: (n) => {
      if (n === Math.floor(deliveries.length / 3) && !killedAt) {
        killedAt = Date.now();
        void drill.killPrimary(harness);
      }
    },
  });
  const stormMs = Date.now() - startedAt;
  // The writer commits again in the simulated lakehouse, before the walk's first check is due.
  harness.lakehouse!.advance(6 * 60_000);
  polling = false;
  await poller;
  expect(killedAt).toBeGreaterThan(0);
  expect(readiness).toContain(503);
  const primaryAfter = await eventually(async () => {
    const now = await drill.primary(harness).catch(() => undefined);
    return now && now !== primaryBefore ? now : undefined;
  }, "a new primary");
  await eventually(async () => {
    const after = (await (await fetch(harness.url("/readyz", 1))).json()) as Record<string, unknown>;
    return after.ok === true && after.topology === drill.topology && after.primary === primaryAfter;
  }, "readyz to name the new primary");

  // 3. After the failover: one thread per table with its diagnosis, and every alert counted once.
  await eventually(
    () =>
      TABLES.every((table) => {
        const root = rootOf(harness, table);
        return root !== undefined && harness.standIn.thread(CHANNEL, root.ts).length >= 1;
      }),
    "a thread with its diagnosis for every storm table",
  );
  const settling = Date.now();
  await quiescent(harness);
  const settledMs = Date.now() - settling;
  const incidents = await Promise.all(TABLES.map((t) => bot.store.openIncidentFor(t)));
  const landed = incidents.reduce((sum, i) => sum + (i?.alertCount ?? 0), 0);
  const duplicated = duplicatedMessages(harness.standIn, CHANNEL, [...TABLES, "db.events"]);

  // 4. The walk carries on: the follow-up scheduled before the failover runs after it.
  const followUp = await eventually(async () => {
    const job = await remediationQueue.getJob(delayedBefore[0] as string);
    return job?.finishedOn && job.finishedOn > killedAt ? job : undefined;
  }, "the follow-up check after the failover");
  expect(followUp.failedReason).toBeUndefined();
  await eventually(
    () => /commits resumed/.test(rootOf(harness, "db.events")?.text ?? ""),
    "the resolved card",
  );

  const figures = {
    drill: drill.topology,
    sent: deliveries.length,
    acknowledged: outcome.acknowledged,
    retried: outcome.retried,
    retries: outcome.retries,
    landed,
    duplicated: duplicated.length,
  };
  console.info(
    `${formatFigures(figures)}; storm ${stormMs} ms, primary killed after ${killedAt - startedAt} ms, all delivered ${settledMs} ms after every thread was there`,
  );
  expect(outcome.acknowledged).toBe(deliveries.length);
  expect(landed).toBe(deliveries.length);
  expect(duplicated, duplicated.join("\n")).toEqual([]);
  expect(delayedBefore.length).toBeGreaterThan(0);
  await remediationQueue.close();
  return figures;
}
