// Every BullMQ worker the bot starts (all through startWorker) hands its "error" events to the one reporter: a lost Redis
// connection is one line per retry period, any other worker error a line of its own kind, and
// none is swallowed by an empty listener.

import type { Worker } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectionErrorReporter } from "../../src/adapters/queue/connection-errors.js";
import { startWorker } from "../../src/adapters/queue/worker.js";
import { REDIS_URL, type TestRedisScope, testRedisScope } from "../support/redis.js";

let scope: TestRedisScope | undefined;
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close(true)));
  await scope?.cleanup();
});

describe("worker errors", () => {
  it("reach the reporter from every worker: outages once per period, other errors as themselves", async () => {
    scope = testRedisScope("worker-errors");
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    let at = 0;
    const reporter = connectionErrorReporter(
      { warn: (fields, message) => lines.push({ fields, message }) },
      { periodMs: 1000, now: () => at },
    );
    const onError = (queue: string, error: Error) => reporter.report(`worker ${queue}`, error);
    const connection = { url: REDIS_URL };
    const prefix = scope.queuePrefix;
    const names = [
      scope.queueNames.diagnose,
      scope.queueNames.slack,
      `remediation-${scope.namespace}`,
      `sweep-${scope.namespace}`,
      `sweep-catalog-${scope.namespace}`,
    ];
    for (const name of names)
      workers.push(
        startWorker(name, z.unknown(), async () => {}, { concurrency: 1 }, { connection, prefix, onError }),
      );

    for (const worker of workers) {
      at += 1000;
      const lost = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6379"), { code: "ECONNREFUSED" });
      worker.emit("error", lost);
      at += 1000;
      worker.emit("error", new Error(`Missing lock for job 7. moveToFinished`));
    }
    expect(lines).toHaveLength(2 * workers.length);
    for (const [i, worker] of workers.entries()) {
      expect(lines[2 * i]).toMatchObject({
        message: "redis unreachable, retrying",
        fields: { source: `worker ${worker.name}`, code: "ECONNREFUSED" },
      });
      expect(lines[2 * i + 1]).toMatchObject({
        message: "queue worker error",
        fields: { source: `worker ${worker.name}`, err: "Missing lock for job 7. moveToFinished" },
      });
    }
    // Within one period the outage is counted into the next line, not written again.
    workers[0]!.emit("error", Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
    expect(lines).toHaveLength(2 * workers.length);
  });
});
