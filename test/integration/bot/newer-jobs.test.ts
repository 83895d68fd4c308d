// A rolling update or a rollback runs two releases on one Redis: what the newer one queues or
// stores, this one's workers must leave for it. A job of a shape this release does not read, or one
// whose incident a newer release stored, is moved back to delayed without spending an attempt
// (looked at again after LEAVE_FOR_NEWER_MS, by whichever worker takes it): its payload untouched,
// counted in iceberg_bot_jobs_total{outcome="left"} each time, logged once per job by a process,
// never failed, never retried in a loop; a worker that reads it then takes it as queued.

import { Writable } from "node:stream";
import { type Job, Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { JOB_OUTCOMES } from "../../../src/adapters/http/metrics/registry.js";
import { createLogger } from "../../../src/adapters/log.js";
import { LEAVE_FOR_NEWER_MS } from "../../../src/adapters/queue/worker.js";
import { packageVersion } from "../../../src/util/package-root.js";
import { until } from "../../support/poll.js";
import { REDIS_URL } from "../../support/redis.js";
import { CHANNEL, type Harness, startHarness } from "./harness.js";

let h: Harness | undefined;
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  await h?.close();
  h = undefined;
});

/** A job a later release might queue: a kind no queue of this release knows. */
const NEWER = { kind: "reindex-partitions", incidentId: "inc-7", spec: { version: 3, fields: ["a"] } };

interface Line {
  msg: string;
  queue?: string;
  job?: string;
}

describe("jobs a newer release queued", () => {
  it("are left for it: delayed, untouched, counted, said once, never failed; a newer worker takes them", async () => {
    const lines: Line[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const text of chunk.toString().split("\n")) if (text.trim()) lines.push(JSON.parse(text));
        done();
      },
    });
    h = await startHarness("newer-jobs", { bots: 0 });
    const bot = await h.addBot({ log: createLogger(h.config, { destination, level: "info" }) });
    const queues: Queue[] = [
      bot.queues.diagnose,
      bot.queues.slack,
      bot.remediationQueue.queue,
      bot.sweep.queues.control,
      bot.sweep.queues.catalog,
    ];
    const jobs: Job[] = [];
    for (const queue of queues) jobs.push(await queue.add(NEWER.kind, NEWER, { jobId: "newer-1" }));
    // A job this release knows, on an incident a newer release stored (format 999).
    const { incident } = await bot.store.openOrJoin("db.events", CHANNEL, Date.now());
    await h.scope.redis.hset(bot.store.keys.incident(incident.id), "format", "999");
    const storedBefore = await h.scope.redis.hgetall(bot.store.keys.incident(incident.id));
    const onNewer = await bot.queues.diagnose.add(
      "incident",
      { kind: "incident", incidentId: incident.id, n: 1 },
      { jobId: "diagnose-on-newer" },
    );
    jobs.push(onNewer);

    const left = async () => {
      const metric = await bot.metricsRegistry.getSingleMetric("iceberg_bot_jobs_total")?.get();
      return (metric?.values ?? [])
        .filter((v) => v.labels.outcome === "left")
        .reduce((sum, v) => sum + v.value, 0);
    };
    const allDelayed = async () =>
      (await Promise.all(jobs.map((j) => j.getState()))).every((s) => s === "delayed");
    // Taken once each, and left.
    await until(async () => (await left()) === jobs.length && (await allDelayed()), "every job left once");

    const queueOf = (job: Job) => queues.find((q) => q.name === job.queueName) as Queue;
    for (const job of jobs) {
      const now = await queueOf(job).getJob(job.id as string);
      expect(now?.data, `${job.queueName} ${job.id}`).toEqual(job.data);
      expect(now?.attemptsMade ?? 0).toBe(0);
      expect(now?.failedReason).toBeUndefined();
      // Looked at again only after the delay: one look per job per 5 minutes, not a loop.
      expect(now?.delay).toBeGreaterThan(LEAVE_FOR_NEWER_MS - 60_000);
      expect(now?.delay).toBeLessThanOrEqual(LEAVE_FOR_NEWER_MS);
    }
    for (const queue of queues) expect(await queue.getJobCountByTypes("failed")).toBe(0);
    expect(await h.scope.redis.hgetall(bot.store.keys.incident(incident.id))).toEqual(storedBefore);
    const said = () => lines.filter((l) => l.msg === "job left for a newer release");
    expect(said()).toHaveLength(jobs.length);

    // Due again (as after the delay): taken and left again, counted, not said again.
    for (const job of jobs) await job.promote();
    await until(
      async () => (await left()) === 2 * jobs.length && (await allDelayed()),
      "every job left twice",
    );
    expect(said()).toHaveLength(jobs.length);
    for (const queue of queues) expect(await queue.getJobCountByTypes("failed")).toBe(0);
    expect(JOB_OUTCOMES).toContain("left");
    // The release that left them says which it is.
    const build = await bot.metricsRegistry.getSingleMetric("iceberg_bot_build_info")?.get();
    expect(build?.values).toEqual([
      { labels: { version: packageVersion(), node: process.versions.node }, value: 1 },
    ]);

    // A newer release's worker (here, any worker that reads the shape) takes them as queued.
    await bot.stop();
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    closing.push(async () => connection.disconnect());
    const taken: Array<{ queue: string; data: unknown }> = [];
    for (const queue of queues) {
      const again = new Queue(queue.name, { connection, prefix: queue.opts.prefix });
      closing.push(() => again.close());
      const newer = new Worker(
        queue.name,
        async (job) => {
          taken.push({ queue: queue.name, data: job.data });
        },
        { connection, prefix: queue.opts.prefix },
      );
      closing.push(() => newer.close());
      for (const job of jobs.filter((j) => j.queueName === queue.name))
        await (await again.getJob(job.id as string))?.promote();
    }
    await until(() => taken.length === jobs.length, "the newer worker to take every job");
    expect(
      taken.filter((t) => t.data === NEWER || JSON.stringify(t.data) === JSON.stringify(NEWER)),
    ).toHaveLength(queues.length);
  });
});
