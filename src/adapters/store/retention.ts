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
async function slackTsEntries(redis: RedisClient, keys: Keys, id: string): Promise<string[]> {
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
    const used = await memoryUsage(redis, key);
    if (used !== null) {
      count++;
      bytes += used;
    }
  }
  for (const text of await slackTsEntries(redis, keys, id)) bytes += Buffer.byteLength(text);
  return { keys: count, bytes };
}

async function memoryUsage(redis: RedisClient, key: string): Promise<number | null> {
  return (await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) as number | null;
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
  const usage = async (key: string) => (await memoryUsage(redis, key)) ?? 0;
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
