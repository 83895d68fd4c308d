// Data lifetime over a whole walked incident (the demo: alert, diagnosis, approval, apply,
// follow-up, resolved): every key the incident left is one retention removes, nothing goes before
// retention.resolvedDays, everything goes after, and the table's audit trail stays, kept for
// retention.auditDays.

import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { createKeys, incidentKeys } from "../../src/adapters/store/keys.js";
import { DAY_MS, purgeClosedIncidents } from "../../src/adapters/store/retention.js";
import { runDemo } from "../../src/cli/demo.js";
import { BotConfigSchema } from "../../src/core/settings.js";
import { REDIS_URL } from "../support/redis.js";
import { incidentFootprint } from "../support/redis-footprint.js";

describe("retention of a walked incident", () => {
  it("removes the incident's record, walk, timeline, reports and Slack bookkeeping after resolvedDays", async () => {
    const { retention } = BotConfigSchema.parse({});
    expect(retention).toEqual({ resolvedDays: 30, auditDays: 400 });
    let checked = false;
    let out = "";
    const code = await runDemo({
      stdout: { write: (chunk: string) => (out += chunk) },
      env: { REDIS_URL },
      followUpIntervalMs: 150,
      onEnd: async (end) => {
        const redis = new Redis(end.redisUrl);
        try {
          const keys = createKeys(end.namespace);
          const closed = await redis.zrange(keys.closed(), 0, -1, "WITHSCORES");
          expect(closed.length).toBe(2); // one id and its score
          const [id, closedAt] = [closed[0] as string, Number(closed[1])];
          expect(await redis.hget(keys.incident(id), "state")).toBe("resolved");

          // Every key holding the incident's id is one retention removes.
          const holding: string[] = [];
          let cursor = "0";
          do {
            const [next, found] = await redis.scan(
              cursor,
              "MATCH",
              `{${end.namespace}}:*${id}*`,
              "COUNT",
              1000,
            );
            cursor = next;
            holding.push(...found.filter((k) => new RegExp(`[:]${id}$`).test(k)));
          } while (cursor !== "0");
          expect(holding.length).toBeGreaterThanOrEqual(4);
          expect(holding.filter((k) => !incidentKeys(keys, id).includes(k))).toEqual([]);
          expect((await incidentFootprint(redis, keys, id)).bytes).toBeGreaterThan(1000);

          const purge = (days: number) =>
            purgeClosedIncidents(redis, keys, { now: closedAt + days * DAY_MS, resolvedDays: 30 });
          expect(await purge(29)).toBe(0);
          expect(await redis.exists(keys.incident(id))).toBe(1);
          expect(await purge(31)).toBe(1);
          for (const key of holding) expect(await redis.exists(key), key).toBe(0);
          expect(await incidentFootprint(redis, keys, id)).toEqual({ keys: 0, bytes: 0 });
          expect(await redis.zscore(keys.closed(), id)).toBeNull();

          // The audit trail of the table outlives it, kept for auditDays after its last entry.
          const audit = keys.tableAudit("db.events");
          expect(await redis.xlen(audit)).toBeGreaterThan(0);
          const ttl = await redis.pttl(audit);
          expect(ttl).toBeGreaterThan(399 * DAY_MS);
          expect(ttl).toBeLessThanOrEqual(400 * DAY_MS);
          checked = true;
        } finally {
          redis.disconnect();
        }
      },
    });
    expect(code, out).toBe(0);
    expect(checked).toBe(true);
  });
});
