// Runs in the "cluster" project only: the suite's Redis is the Cluster the setup started. Checks
// what makes the other suites' flows possible there: every key of the store and of the queues
// hashes to one slot, and /readyz names the topology and the primary serving that slot.
import { Cluster } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { keySlot } from "../../src/adapters/redis/connection.js";
import {
  alertmanagerBody,
  eventually,
  fixedDiagnosis,
  type Harness,
  postAlert,
  startHarness,
} from "../integration/bot/harness.js";
import { deleteKeysMatching, REDIS_URL } from "../support/redis.js";

describe("the bot on a Redis Cluster", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it("keeps every store and queue key of an incident in one slot, and readyz names the primary", async () => {
    expect(REDIS_URL).toMatch(/^redis\+cluster:\/\//);
    const diagnosis = fixedDiagnosis();
    h = await startHarness("cluster-slots", { botOptions: { diagnose: diagnosis.diagnose } });
    const harness = h;
    const bot = harness.bots[0]!;
    expect(bot.redis).toBeInstanceOf(Cluster);
    const response = await postAlert(harness, alertmanagerBody([{ table: "db.events" }]));
    expect(response.status).toBe(202);
    await eventually(
      () => diagnosis.calls.length === 1 && harness.standIn.messages("C0INCIDENTS").length >= 2,
    );

    const cluster = bot.redis as Cluster;
    const keys: string[] = [];
    for (const node of cluster.nodes("master")) {
      for (const pattern of [`{${harness.scope.namespace}}:*`, `${harness.scope.queuePrefix}:*`]) {
        let cursor = "0";
        do {
          const [next, found] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
          cursor = next;
          keys.push(...found);
        } while (cursor !== "0");
      }
    }
    const storeKeys = keys.filter((k) => k.startsWith(`{${harness.scope.namespace}}`));
    const queueKeys = keys.filter((k) => k.startsWith(harness.scope.queuePrefix));
    expect(storeKeys.length).toBeGreaterThan(5);
    expect(queueKeys.length).toBeGreaterThan(3);
    expect(new Set(storeKeys.map(keySlot)).size).toBe(1);
    expect(new Set(queueKeys.map(keySlot)).size).toBe(1);

    const ready = await fetch(harness.url("/readyz"));
    const body = (await ready.json()) as Record<string, unknown>;
    expect(ready.status).toBe(200);
    expect(body).toMatchObject({ ok: true, redis: "ok", topology: "cluster" });
    // The primary reported is the one that owns the store's slot.
    const owner = cluster.slots[keySlot(storeKeys[0]!)]?.[0];
    expect(body.primary).toBe(owner);
    await deleteKeysMatching(cluster, [`{${harness.scope.namespace}}:*`]);
  });
});
