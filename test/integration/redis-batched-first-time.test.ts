// The replay guard's checks of one tick reach Redis as one script and still answer each caller
// as a lone SET NX would: first sighting true, any later one false (within a batch too), with the
// memory's expiry set. Runs on the Cluster as well: the keys share the store's hash tag.

import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { batchedFirstTime } from "../../src/adapters/redis/batched-first-time.js";
import { createKeys } from "../../src/adapters/store/keys.js";
import { scriptKeyCounts, type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
afterEach(async () => {
  await scope?.cleanup();
  scope = undefined;
});

function setUp() {
  scope = testRedisScope("first-time");
  const keys = createKeys(scope.namespace);
  const redis = scope.redis;
  // How many checks each script carried (one key each).
  const sent = scriptKeyCounts(redis);
  const scripts = () => sent;
  const firstTime = batchedFirstTime(redis, (s, k) => keys.seen(s, k));
  return { redis, keys, firstTime, scripts };
}

describe("batchedFirstTime", () => {
  it("answers a tick's checks from one script, a repeat false even within the batch", async () => {
    const { redis, keys, firstTime, scripts } = setUp();
    const answers = await Promise.all([
      firstTime("slack-command", "a", 60),
      firstTime("slack-command", "b", 60),
      firstTime("slack-command", "a", 60),
      firstTime("slack-action", "a", 60),
    ]);
    expect(answers).toEqual([true, true, false, true]);
    expect(scripts()).toEqual([4]);
    expect(await firstTime("slack-command", "b", 60)).toBe(false);
    const ttl = await redis.ttl(keys.seen("slack-command", "a"));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it("splits a large burst into bounded scripts, answering every caller", async () => {
    const { firstTime, scripts } = setUp();
    const answers = await Promise.all(
      Array.from({ length: 250 }, (_, n) => firstTime("slack-command", `burst-${n % 200}`, 60)),
    );
    expect(scripts()).toEqual([100, 100, 50]);
    expect(answers.filter(Boolean)).toHaveLength(200);
    expect(answers.slice(200).every((first) => !first)).toBe(true);
  });

  it("rejects every check of a batch that Redis could not take", async () => {
    const { keys } = setUp();
    // Never connected and no offline queue: every command fails at once.
    const closed = new Redis({ port: 9, lazyConnect: true, enableOfflineQueue: false });
    closed.on("error", () => {});
    const firstTime = batchedFirstTime(closed, (s, k) => keys.seen(s, k));
    const outcomes = await Promise.allSettled([
      firstTime("slack-command", "x", 60),
      firstTime("slack-command", "y", 60),
    ]);
    closed.disconnect();
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
  });
});
