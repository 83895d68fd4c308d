// The alerts waiting for the incident cap, in real Redis: at most `maxTables` tables wait (a storm
// past that is dropped, the sender repeats it), and a table waits at most `maxAgeMs`, its keys
// expiring on their own too, so a storm that no process drains leaves nothing behind for good.

import { afterEach, describe, expect, it } from "vitest";
import { deferredAlertsStore } from "../../src/adapters/store/deferred-alerts.js";
import type { AlertEvent } from "../../src/core/incident/model.js";
import { type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

const firing = (table: string, fingerprint = `fp-${table}`): AlertEvent => ({
  source: "alertmanager",
  status: "firing",
  alertName: "IcebergCommitsStalled",
  labels: { table },
  startsAt: 0,
  fingerprint,
});

describe("alerts waiting for the incident cap", () => {
  it("keep at most maxTables tables, each for at most maxAgeMs", async () => {
    scope = testRedisScope("deferred-bounds");
    let now = 1_000_000;
    const store = deferredAlertsStore(scope.redis, {
      namespace: scope.namespace,
      now: () => now,
      maxTables: 100,
      maxAgeMs: 60_000,
    });
    // A storm of 2,000 tables over the cap.
    let kept = 0;
    for (let i = 0; i < 2000; i++) if (await store.defer(`db.t${i}`, [firing(`db.t${i}`)])) kept++;
    expect(kept).toBe(100);
    expect(await store.count()).toBe(100);
    // A table already waiting still takes its later alerts.
    expect(await store.defer("db.t0", [firing("db.t0", "fp-second")])).toBe(true);
    const [first] = await store.take(1);
    expect(first).toMatchObject({ table: "db.t0" });
    expect(first!.alerts).toHaveLength(2);
    // Their keys expire on their own, whether or not anything drains them.
    const hashTtl = await scope.redis.pttl(`{${scope.namespace}}:deferred-alerts:table:db.t0`);
    expect(hashTtl).toBeGreaterThan(0);
    expect(hashTtl).toBeLessThanOrEqual(60_000);
    expect(await scope.redis.pttl(`{${scope.namespace}}:deferred-alerts:order`)).toBeGreaterThan(0);

    // Past the age, what waited is gone (stale alerts), and room is made for new ones.
    now += 60_001;
    expect(await store.count()).toBe(0);
    expect(await store.take(10)).toEqual([]);
    expect(await scope.redis.exists(`{${scope.namespace}}:deferred-alerts:table:db.t1`)).toBe(0);
    expect(await store.defer("db.late", [firing("db.late")])).toBe(true);
    expect(await store.count()).toBe(1);
  });
});
