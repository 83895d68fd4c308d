// Alerts over the incident-opening cap (core/incident/open-cap.ts), kept in Redis until the cap
// allows their incidents: one hash per table (fingerprint → alert) and a sorted set giving the
// order they came in. Durable, so nothing is lost when a process stops; taking them again after a
// crash re-sends them to the intake, whose repeat window keeps that to one incident.

import type { AlertEvent } from "../../core/incident/model.js";
import type { DeferredAlertsPort } from "../../services/ports.js";
import type { RedisClient } from "../redis/connection.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

// Grants up to ARGV[1] openings from the minute's budget ARGV[2]; the counter expires with its minute.
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local grant = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)
if grant <= 0 then return 0 end
redis.call('INCRBY', KEYS[1], grant)
redis.call('PEXPIRE', KEYS[1], 120000)
return grant
`;

export function deferredAlertsStore(
  redis: RedisClient,
  options: { namespace?: string; now: () => number },
): DeferredAlertsPort {
  const p = `{${options.namespace ?? DEFAULT_NAMESPACE}}:deferred-alerts`;
  const order = `${p}:order`;
  const tableKey = (table: string) => `${p}:table:${table}`;
  return {
    async reserveOpens(want, perMinute) {
      if (want <= 0) return 0;
      const minute = Math.floor(options.now() / 60_000);
      return Number(await redis.eval(RESERVE, 1, `${p}:opened:${minute}`, String(want), String(perMinute)));
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
  };
}
