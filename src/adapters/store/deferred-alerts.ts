// Alerts over the incident-opening cap (core/incident/open-cap.ts), kept in Redis until the cap
// allows their incidents: one hash per table (fingerprint → alert) and a sorted set giving the
// order they came in. Durable, so nothing is lost when a process stops; taking them again after a
// crash re-sends them to the intake, whose repeat window keeps that to one incident.
// Bounded: at most `maxTables` tables wait (a storm past that is dropped; the sender repeats firing
// alerts, so they come back), and a table waits at most `maxAgeMs` (its alerts are stale by then),
// its keys expiring on their own even if no process is left to drain them.

import type { AlertEvent } from "../../core/incident/model.js";
import type { DeferredAlertsPort } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

// Grants openings from the minute's budget ARGV[1] to the tables ARGV[2..], in order. A table is
// counted once a minute however many notifications name it (a storm repeats each table), and a
// table already counted this minute is granted again at no cost. The set expires with its minute.
const RESERVE = `
local limit = tonumber(ARGV[1])
local granted = {}
for i = 2, #ARGV do
  local t = ARGV[i]
  if redis.call('SISMEMBER', KEYS[1], t) == 1 then
    table.insert(granted, t)
  elseif redis.call('SCARD', KEYS[1]) < limit then
    redis.call('SADD', KEYS[1], t)
    table.insert(granted, t)
  end
end
redis.call('PEXPIRE', KEYS[1], 120000)
return granted
`;

// Drops tables that waited past ARGV[2] (ms) with their alert hashes (named ARGV[1] .. table).
const PRUNE = `
local stale = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
for _, t in ipairs(stale) do redis.call('DEL', ARGV[1] .. t) end
if #stale > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2]) end
`;

// KEYS: order, the table's hash. ARGV: hash prefix, oldest kept ms, now, max tables, ttl ms,
// table, then pairs of (fingerprint, alert JSON or "" for a resolved one). Returns 0 when the
// table is new and the set is full (nothing kept), else 1.
const DEFER = `${PRUNE}
if redis.call('ZSCORE', KEYS[1], ARGV[6]) == false and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
for i = 7, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[2], ARGV[i])
  else redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
end
if redis.call('HLEN', KEYS[2]) == 0 then
  -- Every alert of the table resolved before its turn: nothing to open.
  redis.call('ZREM', KEYS[1], ARGV[6])
  redis.call('DEL', KEYS[2])
  return 1
end
redis.call('ZADD', KEYS[1], 'NX', ARGV[3], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** At most this many tables wait for the cap; one more is dropped (its sender repeats it). */
const DEFAULT_DEFERRED_MAX_TABLES = 1000;
/** A table waits at most this long; alerts older than that are stale and the sender repeats live ones. */
const DEFAULT_DEFERRED_MAX_AGE_MS = 3_600_000;

export function deferredAlertsStore(
  redis: RedisClient,
  options: { namespace?: string; now: () => number; maxTables?: number; maxAgeMs?: number },
): DeferredAlertsPort {
  const p = `{${options.namespace ?? DEFAULT_NAMESPACE}}:deferred-alerts`;
  const order = `${p}:order`;
  const tablePrefix = `${p}:table:`;
  const tableKey = (table: string) => `${tablePrefix}${table}`;
  const maxTables = options.maxTables ?? DEFAULT_DEFERRED_MAX_TABLES;
  const maxAgeMs = options.maxAgeMs ?? DEFAULT_DEFERRED_MAX_AGE_MS;
  const prune = () => redis.eval(PRUNE, 1, order, tablePrefix, String(options.now() - maxAgeMs));
  return {
    async reserveOpens(tables, perMinute) {
      if (tables.length === 0) return new Set();
      const minute = Math.floor(options.now() / 60_000);
      const granted = (await redis.eval(
        RESERVE,
        1,
        `${p}:opened:${minute}`,
        String(perMinute),
        ...tables,
      )) as string[];
      return new Set(granted);
    },
    async deferredTables(tables) {
      if (tables.length === 0) return new Set();
      const scores = await Promise.all(tables.map((t) => redis.zscore(order, t)));
      return new Set(tables.filter((_, i) => scores[i] !== null));
    },
    async defer(table, alerts) {
      const now = options.now();
      const pairs = alerts.flatMap((a) => [a.fingerprint, a.status === "firing" ? JSON.stringify(a) : ""]);
      const kept = await redis.eval(
        DEFER,
        2,
        order,
        tableKey(table),
        tablePrefix,
        String(now - maxAgeMs),
        String(now),
        String(maxTables),
        String(maxAgeMs),
        table,
        ...pairs,
      );
      return Number(kept) === 1;
    },
    async count() {
      await prune();
      return redis.zcard(order);
    },
    async take(limit) {
      if (limit <= 0) return [];
      await prune();
      const tables = await redis.zrange(order, 0, limit - 1);
      const hashes = await Promise.all(tables.map((t) => redis.hgetall(tableKey(t))));
      return tables.map((table, i) => ({
        table,
        alerts: Object.values(hashes[i] ?? {}).map((json) => JSON.parse(json) as AlertEvent),
      }));
    },
    async release(table) {
      await redis.multi().zrem(order, table).del(tableKey(table)).exec();
    },
    async claimNote() {
      const minute = Math.floor(options.now() / 60_000);
      return (await redis.set(`${p}:noted:${minute}`, "1", "PX", 120_000, "NX")) === "OK";
    },
  };
}
