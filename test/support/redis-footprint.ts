// What Redis holds for one incident, measured with MEMORY USAGE: the retention test checks that
// nothing is left once it is purged, and bench/incident-memory.ts and the sizing test give the
// figures of docs/operations.md (Sizing).

import type { RedisClient } from "../../src/adapters/redis/connection.js";
import { incidentKeys, type Keys } from "../../src/adapters/store/keys.js";
import { slackTsEntries } from "../../src/adapters/store/retention.js";

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
