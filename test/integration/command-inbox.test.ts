// The command inbox: the receiver records each slash command once (a repeat delivery is dropped in
// the same script), a few milliseconds' commands in one script; workers move every entry into its
// queue exactly as long as it is owed. An entry whose handling failed, or whose worker died before
// acknowledging it, is handled again; a stream deleted under a blocked read is made again. Runs on
// the Cluster as well: the stream and the replay keys share the store's hash tag.

import { afterEach, describe, expect, it } from "vitest";
import { createCommandInbox, parseInboxEntry } from "../../src/adapters/queue/command-inbox.js";
import { INBOX_GROUP, type InboxMover, startInboxMover } from "../../src/adapters/queue/inbox-mover.js";
import { createRedisClient } from "../../src/adapters/redis/connection.js";
import { createKeys } from "../../src/adapters/store/keys.js";
import type { InboxCommand } from "../../src/core/jobs.js";
import { until } from "../support/poll.js";
import { REDIS_URL, scriptKeyCounts, type TestRedisScope, testRedisScope } from "../support/redis.js";

const cleanups: Array<() => Promise<unknown>> = [];
let scope: TestRedisScope | undefined;
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await scope?.cleanup();
  scope = undefined;
});

const command = (triggerId: string, text = "diagnose db.events"): InboxCommand => ({
  text,
  channel: "C0INCIDENTS",
  user: "U0ALICE",
  triggerId,
});

function setUp() {
  scope = testRedisScope("inbox");
  const keys = createKeys(scope.namespace);
  const redis = scope.redis;
  // The stream's key and one replay key per command.
  const keyCounts = scriptKeyCounts(redis);
  let confirmations = 0;
  let replicasFail = false;
  const inbox = createCommandInbox(redis, keys, {
    replayMemorySeconds: 60,
    confirmDurable: async () => {
      confirmations += 1;
      if (replicasFail) throw new Error("Only 0 of 1 Redis replicas confirmed the write");
    },
  });
  const handled: InboxCommand[] = [];
  const errors: string[] = [];
  const startMover = (
    handle?: (entry: InboxCommand) => Promise<void>,
    claimIdleMs = 30_000,
    blockMs = 200,
  ) => {
    const blocking = createRedisClient(REDIS_URL, "blocking");
    const mover: InboxMover = startInboxMover({
      blocking,
      redis,
      key: keys.inbox(),
      blockMs,
      claimIdleMs,
      claimEveryMs: 100,
      handle: async (entry) => {
        const parsed = parseInboxEntry(entry);
        if (!parsed) throw new Error(`not a command: ${entry}`);
        await (handle ?? (async (c) => void handled.push(c)))(parsed);
      },
      onError: (error) => errors.push(error.message),
    });
    cleanups.push(async () => {
      await mover.stop();
    });
    return mover;
  };
  const failReplicas = () => {
    replicasFail = true;
  };
  return {
    redis,
    keys,
    inbox,
    keyCounts,
    handled,
    errors,
    startMover,
    confirmations: () => confirmations,
    failReplicas,
  };
}

describe("command inbox", () => {
  it("records a burst in one script, each trigger id once, repeats answered false", async () => {
    const { redis, keys, inbox, keyCounts } = setUp();
    const answers = await Promise.all([
      inbox.push(command("t1")),
      inbox.push(command("t2", "status")),
      inbox.push(command("t1")),
    ]);
    expect(answers).toEqual([true, true, false]);
    expect(keyCounts).toEqual([1 + 3]);
    // A later delivery of the same command, in a batch of its own, is still a repeat.
    expect(await inbox.push(command("t2", "status"))).toBe(false);
    const entries = await redis.xrange(keys.inbox(), "-", "+");
    expect(entries.map(([, fields]) => parseInboxEntry(fields[1] ?? ""))).toEqual([
      command("t1"),
      command("t2", "status"),
    ]);
    expect(await redis.ttl(keys.seen("slack-command", "t1"))).toBeGreaterThan(50);
  });

  it("answers a batch only once its replicas confirm it, and fails it when they cannot", async () => {
    const { inbox, confirmations, failReplicas } = setUp();
    expect(await Promise.all([inbox.push(command("r1")), inbox.push(command("r2"))])).toEqual([true, true]);
    expect(confirmations()).toBe(1);
    failReplicas();
    await expect(inbox.push(command("r3"))).rejects.toThrow(/replicas confirmed/);
  });

  it("hands every entry to a worker once, and leaves the stream empty", async () => {
    const { inbox, handled, startMover, errors } = setUp();
    startMover();
    await Promise.all(["a", "b", "c"].map((id) => inbox.push(command(id))));
    await until(() => handled.length === 3, "three commands handled");
    expect(handled.map((c) => c.triggerId).sort()).toEqual(["a", "b", "c"]);
    await until(async () => (await inbox.length()) === 0, "the stream emptied");
    expect(errors).toEqual([]);
  });

  it("keeps an entry whose handling failed and hands it over again", async () => {
    const { inbox, redis, keys, startMover } = setUp();
    let attempts = 0;
    const done: string[] = [];
    startMover(async (c) => {
      attempts += 1;
      if (attempts === 1) throw new Error("queue unavailable");
      done.push(c.triggerId);
    }, 300);
    await inbox.push(command("flaky"));
    await until(() => attempts === 1, "the failed attempt");
    // Still owed: in the stream and pending for the group.
    expect(await redis.xlen(keys.inbox())).toBe(1);
    await until(() => done.length === 1, "the second attempt");
    expect(done).toEqual(["flaky"]);
    await until(async () => (await inbox.length()) === 0, "the stream emptied");
  });

  it("takes over what a worker read and never acknowledged", async () => {
    const { inbox, redis, keys, handled, startMover } = setUp();
    await redis.xgroup("CREATE", keys.inbox(), INBOX_GROUP, "0", "MKSTREAM");
    await inbox.push(command("orphan"));
    // A worker reads the entry and dies before acknowledging it.
    const read = await redis.xreadgroup(
      "GROUP",
      INBOX_GROUP,
      "dead-worker",
      "COUNT",
      10,
      "STREAMS",
      keys.inbox(),
      ">",
    );
    expect(read).not.toBeNull();
    startMover(undefined, 300);
    await until(() => handled.length === 1, "the orphaned command handled");
    expect(handled[0]?.triggerId).toBe("orphan");
    await until(async () => (await inbox.length()) === 0, "the stream emptied");
  });

  it("makes the stream and its group again when they are deleted under a read", async () => {
    const { inbox, redis, keys, handled, startMover } = setUp();
    startMover();
    await inbox.push(command("before"));
    await until(() => handled.length === 1, "the first command handled");
    await redis.del(keys.inbox());
    await inbox.push(command("after"));
    await until(() => handled.length === 2, "the command after the deletion handled");
    expect(handled.map((c) => c.triggerId)).toEqual(["before", "after"]);
  });

  it("stops at once while a read is blocked", async () => {
    const { startMover, inbox, handled } = setUp();
    // A read that blocks for ten minutes: stop() returning at all shows it did not wait the read
    // out, with no wall-clock bound a busy machine could miss.
    const mover = startMover(undefined, 30_000, 600_000);
    await inbox.push(command("first"));
    await until(() => handled.length === 1, "the first command handled");
    // The mover is now back in its blocking read.
    await mover.stop();
    expect(handled.map((c) => c.triggerId)).toEqual(["first"]);
  });

  it("reads back only what is a command", () => {
    expect(parseInboxEntry(JSON.stringify(command("x")))).toEqual(command("x"));
    expect(parseInboxEntry("not json")).toBeUndefined();
    expect(parseInboxEntry(JSON.stringify({ text: "status" }))).toBeUndefined();
  });
});
