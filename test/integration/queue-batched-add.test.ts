// Jobs added in the same tick reach Redis together (one addBulk) and still keep their own ids,
// so the duplicate-proof job ids work exactly as with a plain add.

import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { batchedAdd } from "../../src/adapters/queue/queues.js";
import { REDIS_URL, type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
let queue: Queue<{ n: number }> | undefined;

afterEach(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  await scope?.cleanup();
});

function setUp(): { queue: Queue<{ n: number }>; add: ReturnType<typeof batchedAdd<{ n: number }>> } {
  scope = testRedisScope("batched-add");
  queue = new Queue<{ n: number }>(scope.queueNames.diagnose, {
    connection: { url: REDIS_URL },
    prefix: scope.queuePrefix,
  });
  return { queue, add: batchedAdd(queue) };
}

describe("batchedAdd", () => {
  it("adds every job of one tick with its own id and resolves each caller with its job", async () => {
    const { queue, add } = setUp();
    const bulkCalls: number[] = [];
    const realAddBulk = queue.addBulk.bind(queue);
    queue.addBulk = async (jobs) => {
      bulkCalls.push(jobs.length);
      return realAddBulk(jobs);
    };
    const jobs = await Promise.all(
      Array.from({ length: 25 }, (_, n) => add("diagnose", { n }, { jobId: `job-${n}` })),
    );
    expect(bulkCalls).toEqual([25]);
    expect(jobs.map((job) => job.id)).toEqual(Array.from({ length: 25 }, (_, n) => `job-${n}`));
    expect(await queue.count()).toBe(25);
  });

  it("splits a large burst into bounded batches so one flush never holds the event loop long", async () => {
    const { queue, add } = setUp();
    const bulkCalls: number[] = [];
    const realAddBulk = queue.addBulk.bind(queue);
    queue.addBulk = async (jobs) => {
      bulkCalls.push(jobs.length);
      return realAddBulk(jobs);
    };
    await Promise.all(Array.from({ length: 60 }, (_, n) => add("diagnose", { n }, { jobId: `burst-${n}` })));
    expect(bulkCalls).toEqual([25, 25, 10]);
    expect(await queue.count()).toBe(60);
  });

  it("keeps one job for a duplicate id, within a batch and across batches", async () => {
    const { queue, add } = setUp();
    await Promise.all([
      add("diagnose", { n: 1 }, { jobId: "same" }),
      add("diagnose", { n: 2 }, { jobId: "same" }),
    ]);
    await add("diagnose", { n: 3 }, { jobId: "same" });
    expect(await queue.count()).toBe(1);
    expect((await queue.getJob("same"))?.data.n).toBe(1);
  });

  it("rejects every caller of a batch that Redis refused", async () => {
    const closed = setUp();
    await closed.queue.close();
    queue = undefined; // already closed: nothing for afterEach to clean in the queue
    const results = await Promise.allSettled([closed.add("a", { n: 1 }), closed.add("b", { n: 2 })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
