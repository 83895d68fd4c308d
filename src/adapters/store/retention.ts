// Data lifetime. A closed incident (resolved or stopped) keeps its record, walk, timeline, reports
// and Slack bookkeeping for `retention.resolvedDays`, then one pass removes them together; the
// per-table audit trail keeps its entries for the longer `retention.auditDays` (trimmed as it is
// appended to, and the whole stream expires when a table has had no entry for that long).

import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { incidentKeys, type Keys } from "./keys.js";

export const DAY_MS = 86_400_000;
/** At most this many incidents per purge call, so one pass never holds Redis long. */
const PURGE_BATCH = 200;

export interface PurgeOptions {
  /** The incidents' clock (what close() dated them by). */
  now: number;
  resolvedDays: number;
}

/** Removes incidents closed more than `resolvedDays` ago. Returns how many were removed. */
export async function purgeClosedIncidents(
  redis: RedisClient,
  keys: Keys,
  options: PurgeOptions,
): Promise<number> {
  const before = options.now - options.resolvedDays * DAY_MS;
  const ids = await redis.zrangebyscore(keys.closed(), "-inf", before, "LIMIT", 0, PURGE_BATCH);
  let removed = 0;
  for (const id of ids) {
    const fields = (await slackTsEntries(redis, keys, id)).filter((_, i) => i % 2 === 0);
    const all = incidentKeys(keys, id);
    const done = Number(await runScript(redis, "incident-purge", [keys.closed(), ...all], [id]));
    if (done === 1) {
      if (fields.length > 0) await redis.hdel(keys.slackTs(), ...fields);
      removed++;
    }
  }
  return removed;
}

/** The Slack ts of an incident's messages, fields of a shared hash found by their `<id>|` prefix: field, value, field… */
export async function slackTsEntries(redis: RedisClient, keys: Keys, id: string): Promise<string[]> {
  const flat: string[] = [];
  let cursor = "0";
  do {
    const [next, page] = await redis.hscan(keys.slackTs(), cursor, "MATCH", `${id}|*`, "COUNT", 500);
    cursor = next;
    flat.push(...page);
  } while (cursor !== "0");
  return flat;
}

export interface RetentionRunner {
  stop(): void;
}

/** Runs the purge now and then hourly until stopped. */
export function startRetention(options: {
  redis: RedisClient;
  keys: Keys;
  now: () => number;
  resolvedDays: number;
  onPurged?: (count: number) => void;
  onError?: (error: Error) => void;
}): RetentionRunner {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      let removed = 0;
      for (;;) {
        const n = await purgeClosedIncidents(options.redis, options.keys, {
          now: options.now(),
          resolvedDays: options.resolvedDays,
        });
        removed += n;
        if (n < PURGE_BATCH) break;
      }
      if (removed > 0) options.onPurged?.(removed);
    } catch (error) {
      options.onError?.(error as Error);
    } finally {
      running = false;
    }
  };
  void pass();
  const timer = setInterval(() => void pass(), 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
