// Alerts over the incident-opening cap (core/incident/open-cap.ts), kept in Redis until the cap
// allows their incidents: one hash per table (fingerprint → alert) and a sorted set giving the
// order they came in. Durable, so nothing is lost when a process stops; taking them again after a
// crash re-sends them to the intake, whose repeat window keeps that to one incident.

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

export function deferredAlertsStore(
  redis: RedisClient,
  options: { namespace?: string; now: () => number },
): DeferredAlertsPort {
  const p = `{${options.namespace ?? DEFAULT_NAMESPACE}}:deferred-alerts`;
  const order = `${p}:order`;
  const tableKey = (table: string) => `${p}:table:${table}`;
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
      const tx = redis.multi();
      for (const alert of alerts) {
        if (alert.status === "firing") tx.hset(tableKey(table), alert.fingerprint, JSON.stringify(alert));
        else tx.hdel(tableKey(table), alert.fingerprint);
      }
      tx.zadd(order, "NX", options.now(), table);
      tx.hlen(tableKey(table));
      const results = await tx.exec();
      // Every alert of the table resolved before its turn: nothing to open.
      if (Number(results?.at(-1)?.[1] ?? 0) === 0)
        await redis.multi().zrem(order, table).del(tableKey(table)).exec();
    },
    async count() {
      return redis.zcard(order);
    },
    async take(limit) {
      if (limit <= 0) return [];
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
