// What a failover drill sends and how it counts: a sender that behaves like Alertmanager (retry on
// a 5xx or a broken connection until acknowledged) and the figures each drill reports.

import type { SlackStandIn } from "../../src/sim/slack/types.js";

export interface DrillFigures {
  drill: string;
  /** Distinct alerts sent. */
  sent: number;
  /** Alerts that ended with a 2xx. */
  acknowledged: number;
  /** Alerts that needed at least one retry (a 5xx or a dropped connection first). */
  retried: number;
  /** Attempts beyond the first, all alerts together. */
  retries: number;
  /** Alerts whose effect is in Redis after the drill (counted on the incidents). */
  landed: number;
  /** Slack messages posted more than once, and threads beyond one per table. */
  duplicated: number;
}

export interface Delivery {
  url: string;
  body: string;
  token: string;
}

/** Delivers every alert, `concurrency` at a time, retrying each until it is acknowledged or time runs out. */
export async function deliverAll(
  deliveries: readonly Delivery[],
  options: {
    concurrency: number;
    deadlineMs: number;
    retryDelayMs: number;
    onAcknowledged?: (n: number) => void;
  },
): Promise<{ acknowledged: number; retried: number; retries: number }> {
  const deadline = Date.now() + options.deadlineMs;
  let next = 0;
  let acknowledged = 0;
  let retried = 0;
  let retries = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const delivery = deliveries[index];
      if (!delivery) return;
      let attempt = 0;
      for (;;) {
        attempt++;
        const status = await fetch(delivery.url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${delivery.token}` },
          body: delivery.body,
          signal: AbortSignal.timeout(10_000),
        }).then(
          async (r) => {
            await r.arrayBuffer();
            return r.status;
          },
          () => 0,
        );
        if (status >= 200 && status < 300) {
          acknowledged++;
          options.onAcknowledged?.(acknowledged);
          break;
        }
        // A 4xx would be our own mistake: a sender does not retry it, and the drill fails on it.
        if (status >= 400 && status < 500) throw new Error(`alert ${index} refused with ${status}`);
        if (Date.now() > deadline) return;
        await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs));
      }
      if (attempt > 1) {
        retried++;
        retries += attempt - 1;
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return { acknowledged, retried, retries };
}

/** Messages posted twice (same thread, same text) plus root messages beyond one per table. */
export function duplicatedMessages(
  standIn: SlackStandIn,
  channel: string,
  tables: readonly string[],
): string[] {
  const messages = standIn.messages(channel).filter((m) => !m.ephemeralUser);
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const m of messages) {
    const key = `${m.thread_ts ?? "root"}|${m.text}`;
    if (seen.has(key)) duplicates.push(`twice in ${m.thread_ts ?? "the channel"}: ${m.text.slice(0, 120)}`);
    seen.add(key);
  }
  for (const table of tables) {
    const roots = messages.filter((m) => !m.thread_ts && rootNames(m.text, table));
    if (roots.length > 1) duplicates.push(`${roots.length} roots for ${table}`);
  }
  return duplicates;
}

function rootNames(text: string, table: string): boolean {
  return new RegExp(`(^|[^\\w.])${table.replace(/\./g, "\\.")}([^\\w.]|$)`).test(text);
}

export function formatFigures(f: DrillFigures): string {
  return `drill ${f.drill}: sent ${f.sent}, acknowledged ${f.acknowledged}, retried ${f.retried} (${f.retries} retries), landed ${f.landed}, duplicated ${f.duplicated}`;
}
