// The incident history in real Redis: newest first, one record per incident however often it is
// written, trimmed to `retention.resolvedDays`, and a record of another format read or passed over.

import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { registerHistoryMetrics } from "../../../src/adapters/http/metrics/history.js";
import { FLEET_REFRESH_MS, HistoryStore } from "../../../src/adapters/store/history-store.js";
import { recurringTables } from "../../../src/core/history/fleet.js";
import { closedIncident } from "../../support/history-records.js";
import { type TestRedisScope, testRedisScope } from "../../support/redis.js";

const DAY = 86_400_000;
let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

const incident = closedIncident;

/** A store on its own Redis scope (cleaned up after the test), keeping 30 days, on the test's clock. */
function historyStore(label: string, now: () => number): { store: HistoryStore; space: TestRedisScope } {
  const space = testRedisScope(label);
  scope = space;
  return {
    store: new HistoryStore(space.redis, { namespace: space.namespace, resolvedDays: 30, now }),
    space,
  };
}

describe("history store", () => {
  it("lists newest first, keeps one record per incident, and forgets what retention removes", async () => {
    let now = 100 * DAY;
    const { store, space } = historyStore("history-store", () => now);
    await store.save(incident("inc-1", now - 40 * DAY));
    await store.save(incident("inc-2", now - 10 * DAY));
    await store.save(incident("inc-3", now - 1 * DAY));
    await store.save(incident("inc-3", now - 1 * DAY, { fixedBy: "raise-commit-retries" }));
    const listed = await store.list("db.events");
    expect(listed.map((h) => h.incidentId)).toEqual(["inc-3", "inc-2"]);
    expect(listed[0]!.fixedBy).toBe("raise-commit-retries");
    expect(await store.tablesWithHistory()).toEqual(["db.events"]);
    // The record older than the retention was removed when the next one was written.
    expect(await space.redis.hexists(`{${space.namespace}}:history:db.events`, "inc-1")).toBe(0);
    // The keys expire with the retention, so a table that stops failing leaves nothing behind.
    const ttl = await space.redis.pttl(`{${space.namespace}}:history:db.events`);
    expect(ttl).toBeGreaterThan(29 * DAY);
    expect(ttl).toBeLessThanOrEqual(30 * DAY);

    now += 21 * DAY;
    expect((await store.list("db.events")).map((h) => h.incidentId)).toEqual(["inc-3"]);
    expect(await store.get("db.events", "inc-3")).toMatchObject({ incidentId: "inc-3" });
  });

  it("counts incidents by table class and cause on /metrics and finds the tables that failed again", async () => {
    const now = 10 * DAY;
    const { store } = historyStore("history-metrics", () => now);
    await store.save(incident("inc-1", now - 3 * DAY));
    await store.save(incident("inc-2", now - DAY));
    await store.save(
      incident("inc-3", now - DAY, {
        table: "db.orders",
        writerKind: "connect",
        triage: "connect-coordinator-stopped",
        rootCause: undefined,
      }),
    );
    const registry = new Registry();
    registerHistoryMetrics(registry, store);
    const text = await registry.metrics();
    expect(text).toContain(
      'iceberg_bot_incidents{table_class="flink",triage="commit-conflict",root_cause="competing-appends"} 2',
    );
    expect(text).toContain(
      'iceberg_bot_incidents{table_class="connect",triage="connect-coordinator-stopped",root_cause="none"} 1',
    );
    const recurring = recurringTables(await store.all());
    expect(recurring).toEqual([
      {
        table: "db.events",
        incidents: 2,
        triage: "commit-conflict",
        rootCause: "competing-appends",
        times: 2,
        lastAtMs: now - DAY - 600_000,
      },
    ]);
  });

  it("reads the fleet once per change: a scrape with nothing new reuses the last read", async () => {
    let now = 10 * DAY;
    const { store, space } = historyStore("history-fleet", () => now);
    const ids = async () => (await store.all()).map((h) => h.incidentId).sort();
    await store.save(incident("inc-1", now - DAY));
    expect(await ids()).toEqual(["inc-1"]);

    // Removed behind the store's back: nothing closed since, so the last read is still served
    // (this is what keeps a scrape to one GET).
    await space.redis.hdel(`{${space.namespace}}:history:db.events`, "inc-1");
    expect(await ids()).toEqual(["inc-1"]);

    // An incident closes: the version moves and the fleet is read again.
    await store.save(incident("inc-2", now - DAY / 2, { table: "db.orders" }));
    expect(await ids()).toEqual(["inc-2"]);

    // Nothing closes for a while, yet records age out of the window with time: read again.
    await space.redis.hdel(`{${space.namespace}}:history:db.orders`, "inc-2");
    expect(await ids()).toEqual(["inc-2"]);
    now += FLEET_REFRESH_MS;
    expect(await ids()).toEqual([]);
  });

  it("reads a newer format whose fields are there and passes over what it cannot read", async () => {
    const now = 10 * DAY;
    const { store, space } = historyStore("history-format", () => now);
    await store.save(incident("inc-1", now - DAY));
    const key = `{${space.namespace}}:history:db.events`;
    const index = `{${space.namespace}}:history-index:db.events`;
    await space.redis.hset(
      key,
      "inc-2",
      JSON.stringify({ ...incident("inc-2", now), format: 2, extra: "kept" }),
    );
    await space.redis.zadd(index, now, "inc-2");
    await space.redis.hset(key, "inc-3", "{not json");
    await space.redis.zadd(index, now - 2, "inc-3");
    const listed = await store.list("db.events");
    expect(listed.map((h) => h.incidentId)).toEqual(["inc-2", "inc-1"]);
    expect((listed[0] as unknown as { extra: string }).extra).toBe("kept");
  });

  it("passes over a record whose nested fields are damaged (steps: [null]) and reports it once", async () => {
    const now = 10 * DAY;
    const space = testRedisScope("history-nested");
    scope = space;
    const reported: Array<{ incidentId: string; why: string }> = [];
    const store = new HistoryStore(space.redis, {
      namespace: space.namespace,
      resolvedDays: 30,
      now: () => now,
      onUnreadable: ({ incidentId, why }) => reported.push({ incidentId, why }),
    });
    await store.save(incident("inc-1", now - DAY, { fixedBy: "raise-commit-retries" }));
    const key = `{${space.namespace}}:history:db.events`;
    const index = `{${space.namespace}}:history-index:db.events`;
    await space.redis.hset(key, "inc-2", JSON.stringify({ ...incident("inc-2", now), steps: [null] }));
    await space.redis.zadd(index, now, "inc-2");
    await space.redis.hset(
      key,
      "inc-3",
      JSON.stringify({ ...incident("inc-3", now - 2), steps: [{ stepId: "raise-commit-retries" }] }),
    );
    await space.redis.zadd(index, now - 2, "inc-3");
    for (let i = 0; i < 3; i++)
      expect((await store.list("db.events")).map((h) => h.incidentId)).toEqual(["inc-1"]);
    expect(await store.get("db.events", "inc-2")).toBeUndefined();
    expect(reported).toEqual([
      { incidentId: "inc-2", why: expect.stringMatching(/^steps\.0: /) },
      { incidentId: "inc-3", why: expect.stringMatching(/^steps\.0\./) },
    ]);
  });
});
