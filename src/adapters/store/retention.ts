// Data lifetime. A closed incident (resolved or stopped) keeps its record, walk, timeline, reports
// and Slack bookkeeping for `retention.resolvedDays`, then one pass removes them together; the
// per-table audit trail keeps its entries for the longer `retention.auditDays` (trimmed as it is
// appended to, and the whole stream expires when a table has had no entry for that long).

import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import { incidentKeys, type Keys } from "./keys.js";

export const DAY_MS = 86_400_000;

export interface PurgeOptions {
  /** The incidents' clock (what close() dated them by). */
  now: number;
  resolvedDays: number;
  /** At most this many incidents per call, so one pass never holds Redis long. */
  limit?: number;
}

/** Removes incidents closed more than `resolvedDays` ago. Returns how many were removed. */
export async function purgeClosedIncidents(
  redis: RedisClient,
  keys: Keys,
  options: PurgeOptions,
): Promise<number> {
  const before = options.now - options.resolvedDays * DAY_MS;
  const ids = await redis.zrangebyscore(keys.closed(), "-inf", before, "LIMIT", 0, options.limit ?? 200);
  let removed = 0;
  for (const id of ids) {
    // The Slack ts of its messages are fields of a shared hash: found by their `<id>|` prefix.
    const fields: string[] = [];
    let cursor = "0";
    do {
      const [next, flat] = await redis.hscan(keys.slackTs(), cursor, "MATCH", `${id}|*`, "COUNT", 500);
      cursor = next;
      for (let i = 0; i < flat.length; i += 2) fields.push(flat[i] as string);
    } while (cursor !== "0");
    const all = incidentKeys(keys, id);
    const done = Number(await runScript(redis, "incident-purge", [keys.closed(), ...all], [id]));
    if (done === 1) {
      if (fields.length > 0) await redis.hdel(keys.slackTs(), ...fields);
      removed++;
    }
  }
  return removed;
}

export interface RetentionRunner {
  stop(): void;
}

/** Runs the purge now and then every `everyMs` (default hourly) until stopped. */
export function startRetention(options: {
  redis: RedisClient;
  keys: Keys;
  now: () => number;
  resolvedDays: number;
  everyMs?: number;
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
        if (n < 200) break;
      }
      if (removed > 0) options.onPurged?.(removed);
    } catch (error) {
      options.onError?.(error as Error);
    } finally {
      running = false;
    }
  };
  void pass();
  const timer = setInterval(() => void pass(), options.everyMs ?? 3_600_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** What one incident holds in Redis: its keys' MEMORY USAGE plus its fields in shared hashes. */
export async function incidentFootprint(
  redis: RedisClient,
  keys: Keys,
  id: string,
): Promise<{ keys: number; bytes: number }> {
  let count = 0;
  let bytes = 0;
  for (const key of incidentKeys(keys, id)) {
    const used = (await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) as number | null;
    if (used !== null) {
      count++;
      bytes += used;
    }
  }
  let cursor = "0";
  do {
    const [next, flat] = await redis.hscan(keys.slackTs(), cursor, "MATCH", `${id}|*`, "COUNT", 500);
    cursor = next;
    for (const text of flat) bytes += Buffer.byteLength(text);
  } while (cursor !== "0");
  return { keys: count, bytes };
}

/** What Redis holds for a deployment's incidents, by what it is (bench/incident-memory.ts, Sizing). */
export interface Footprint {
  /** The incident's own keys and its fields in shared hashes: kept until retention removes it. */
  incident: number;
  /** The table's audit trail (kept for retention.auditDays). */
  audit: number;
  /** The table's incident history (kept as long as its incidents). */
  history: number;
  /**
   * The incident's finished jobs (BullMQ job hashes: diagnosis, apply, approval, follow-up checks),
   * each kept a day after it finished (removeOnComplete) and at most 10,000 per queue.
   */
  jobs: number;
  /** Keys that expire on their own within the hour: replay guards, intake windows, stall checks. */
  expiring: number;
  /** Every other key under the hash tag: the queues' own keys and capped event streams, the outbox's. */
  beside: number;
}

/** MEMORY USAGE over every key of the bot's hash tag, split by what it is, for one incident. */
export async function footprint(
  redis: RedisClient,
  keys: Keys,
  hashTag: string,
  id: string,
): Promise<Footprint> {
  const usage = async (key: string) =>
    Number((await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
  const { bytes: incident } = await incidentFootprint(redis, keys, id);
  const table = (await redis.hget(keys.incident(id), "table")) ?? "";
  const audit = await usage(keys.tableAudit(table));
  const own = new Set(incidentKeys(keys, id));
  let all = 0;
  let history = 0;
  let jobs = 0;
  let expiring = 0;
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `{${hashTag}}*`, "COUNT", 1000);
    cursor = next;
    for (const key of found) {
      const used = await usage(key);
      all += used;
      if (/:history(-index)?:/.test(key)) history += used;
      else if (key !== keys.tableAudit(table) && !own.has(key)) {
        // A finished BullMQ job is a hash with its finishing time; what expires has a TTL of an hour at most.
        const ttl = await redis.pttl(key);
        if (ttl > 0 && ttl <= 3_600_000) expiring += used;
        else if ((await redis.type(key)) === "hash" && (await redis.hexists(key, "finishedOn")) === 1)
          jobs += used;
      }
    }
  } while (cursor !== "0");
  // Shared hashes' fields of the incident are counted in `incident` and in their hash's usage.
  return {
    incident,
    audit,
    history,
    jobs,
    expiring,
    beside: Math.max(0, all - incident - audit - history - jobs - expiring),
  };
}
