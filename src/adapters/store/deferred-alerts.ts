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
import { runScript } from "../redis/scripts.js";
import { DEFAULT_NAMESPACE } from "./keys.js";

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
  const prune = () =>
    runScript(redis, "deferred-alerts-prune", [order], [tablePrefix, String(options.now() - maxAgeMs)]);
  return {
    async reserveOpens(tables, perMinute) {
      if (tables.length === 0) return new Set();
      const minute = Math.floor(options.now() / 60_000);
      const granted = (await runScript(
        redis,
        "deferred-alerts-reserve",
        [`${p}:opened:${minute}`],
        [String(perMinute), ...tables],
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
      const kept = await runScript(
        redis,
        "deferred-alerts-defer",
        [order, tableKey(table)],
        [
          tablePrefix,
          String(now - maxAgeMs),
          String(now),
          String(maxTables),
          String(maxAgeMs),
          table,
          ...pairs,
        ],
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
