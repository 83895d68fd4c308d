// Readiness follows a Redis Cluster failover: a bot left idle keeps the slot table of before the
// failover, which once held /readyz at 503 for about 40 s after the cluster had recovered. Here
// the primary of the bot's slot is killed on a private Cluster; once the cluster has promoted its
// replica (as the surviving nodes say), the bot's next probes answer 200 naming the new primary.

import { afterEach, describe, expect, it } from "vitest";
import { keySlot } from "../../src/adapters/redis/connection.js";
import { createKeys } from "../../src/adapters/store/keys.js";
import { type Harness, startHarness } from "../integration/bot/harness.js";
import { until } from "../support/poll.js";
import { ask, type RedisCluster, startCluster } from "../support/redis-topology.js";

type Slots = Array<[number, number, [string, number, ...unknown[]], ...unknown[]]>;

/** The port of the node the cluster (as `port` sees it) names primary of `slot`, if it is ok. */
async function ownerSeenBy(port: number, slot: number): Promise<number | undefined> {
  if (!/cluster_state:ok/.test(String(await ask(port, "CLUSTER", "INFO")))) return undefined;
  const slots = (await ask(port, "CLUSTER", "SLOTS")) as Slots;
  const range = slots.find(([from, to]) => slot >= from && slot <= to);
  return range ? Number(range[2][1]) : undefined;
}

describe("readiness on a Redis Cluster failover", () => {
  let h: Harness | undefined;
  let cluster: RedisCluster | undefined;
  afterEach(async () => {
    await h?.close();
    await cluster?.stop();
    h = undefined;
    cluster = undefined;
  });

  it("answers 200 again within a probe or two of the cluster promoting the replica", async () => {
    cluster = await startCluster(3, 1);
    const redis = cluster;
    // A replica that never synced does not take over (its data counts as too old): wait for all.
    for (const port of redis.ports)
      await until(async () => {
        const replication = String(await ask(port, "INFO", "replication"));
        return replication.includes("role:master") || replication.includes("master_link_status:up");
      }, `node ${port} to be a primary or a synced replica`);
    h = await startHarness("cluster-ready", { env: { REDIS_URL: redis.url } });
    const harness = h;
    const probe = async () => {
      const response = await fetch(harness.url("/readyz?check=redis"));
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    await until(async () => (await probe()).status === 200, "the bot to be ready");
    const before = String((await probe()).body.primary);
    const killed = Number(before.split(":")[1]);
    const slot = keySlot(createKeys(harness.scope.namespace).sequence());
    expect(await ownerSeenBy(redis.ports.find((p) => p !== killed)!, slot)).toBe(killed);

    redis.kill(killed);
    await until(async () => (await probe()).status === 503, "readiness to see the primary gone");
    // The cluster recovers: every surviving node says ok and names another primary for the slot.
    const survivors = redis.ports.filter((p) => p !== killed);
    const promoted = await until(async () => {
      const owners = await Promise.all(survivors.map((p) => ownerSeenBy(p, slot).catch(() => undefined)));
      const owner = owners[0];
      return owner !== undefined && owner !== killed && owners.every((o) => o === owner) ? owner : undefined;
    }, "the cluster to promote the replica");

    // The bot follows within a probe or two: no stale slot table keeps it out of its Service.
    const answers = [await probe(), await probe()];
    const ready = answers.find((a) => a.status === 200);
    expect(ready, JSON.stringify(answers.map((a) => a.body))).toBeDefined();
    expect(ready?.body).toMatchObject({ ok: true, topology: "cluster", primary: `127.0.0.1:${promoted}` });
  });
});
