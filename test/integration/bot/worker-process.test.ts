// `start` with its workers in a supervised child process: a child that dies mid-diagnosis is
// replaced and the diagnosis is finished; shutdown stops the receiver first, then drains and ends
// the child, and only then returns.

import { getPriority } from "node:os";
import { Writable } from "node:stream";
import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/adapters/log.js";
import type { SupervisorEvent } from "../../../src/worker-supervisor.js";
import { REDIS_URL } from "../../support/redis.js";
import {
  alertmanagerBody,
  CHANNEL,
  eventually,
  type Harness,
  postAlert,
  quiescent,
  startHarness,
} from "./harness.js";

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("start runs its workers in a supervised process", () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const catalogLoads = (harness: Harness) =>
    harness.lakehouse!.requests.filter((r) => r.service === "catalog" && r.path.includes("/tables/")).length;

  it("restarts a worker process killed mid-diagnosis, and the diagnosis is still posted once", async () => {
    const events: SupervisorEvent[] = [];
    h = await startHarness("child-crash", {
      scenario: "competing-appends",
      botOptions: {
        workerProcess: { restartDelayMs: 50, onEvent: (e) => events.push(e) },
        lockDurationMs: 1000,
        stalledIntervalMs: 500,
        // The killed process held the incident's Slack queue: the new one takes it over once the
        // lease runs out (30 s by default, which would leave the test timing against it).
        slackDelivery: { leaseMs: 3000 },
      },
    });
    const harness = h;
    const supervisor = harness.bots[0]!.workerProcess!;
    expect(harness.bots[0]!.workers).toBeUndefined();
    const firstPid = supervisor.pid!;
    expect(firstPid).not.toBe(process.pid);
    // Diagnoses yield the CPU to the receiver's acks.
    expect(getPriority(firstPid)).toBe(Math.min(19, getPriority() + 5));
    // Slow table reads keep the diagnosis running while we kill its process.
    harness.lakehouse!.faults.inject({
      service: "catalog",
      path: "^/v1/.*/tables/",
      kind: "latency",
      ms: 1500,
      times: 1,
    });

    expect((await postAlert(harness, alertmanagerBody([{ table: "db.events" }]))).status).toBe(202);
    await eventually(() => catalogLoads(harness) >= 1 || undefined, "the diagnosis to start");
    process.kill(firstPid, "SIGKILL");

    await eventually(
      () => (supervisor.restarts === 1 && supervisor.pid !== firstPid) || undefined,
      "a new worker process",
    );
    const reply = await eventually(
      () => harness.standIn.messages(CHANNEL).find((m) => m.thread_ts),
      "the diagnosis reply",
    );
    expect(reply.text).toContain("db.events");
    // The killed run was retried (a second table read), not lost.
    expect(catalogLoads(harness)).toBeGreaterThanOrEqual(2);
    expect(alive(firstPid)).toBe(false);
    expect(events.find((e) => e.kind === "exited")).toMatchObject({
      pid: firstPid,
      signal: "SIGKILL",
      expected: false,
    });
    await quiescent(harness);
    // One diagnosis (its proposal follows in the thread as its own message).
    const diagnoses = harness.standIn
      .messages(CHANNEL)
      .filter((m) => m.thread_ts && m.text.startsWith("db.events: "));
    expect(diagnoses).toHaveLength(1);
  });

  it("on shutdown stops the receiver, then lets the worker process finish its job and exit", async () => {
    // Log lines and process events in the order they happened.
    const order: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split("\n").filter(Boolean))
          order.push((JSON.parse(line) as { msg: string }).msg);
        done();
      },
    });
    const events: SupervisorEvent[] = [];
    h = await startHarness("child-stop", {
      // A healthy table: no remediation step follows the diagnosis.
      scenario: "healthy-flink",
      botOptions: {
        log: createLogger({ logLevel: "info" }, { destination }),
        workerProcess: {
          onEvent: (e) => {
            events.push(e);
            order.push(`worker process ${e.kind}`);
          },
        },
      },
    });
    const harness = h;
    const bot = harness.bots[0]!;
    harness.lakehouse!.faults.inject({
      service: "catalog",
      path: "^/v1/.*/tables/",
      kind: "latency",
      ms: 1500,
      times: 1,
    });
    expect((await postAlert(harness, alertmanagerBody([{ table: "db.orders" }]))).status).toBe(202);
    await eventually(() => catalogLoads(harness) >= 1 || undefined, "the diagnosis to start");
    const pid = bot.workerProcess!.pid!;

    await bot.stop();

    // Both halves are down when stop returns: no listener, no child.
    expect(alive(pid)).toBe(false);
    const refused = await fetch(harness.url("/healthz")).then(
      () => false,
      () => true,
    );
    expect(refused).toBe(true);
    expect(events.filter((e) => e.kind === "exited")).toEqual([
      expect.objectContaining({ pid, code: 0, expected: true }),
    ]);
    // The job that was running when the stop came was finished, not abandoned.
    const queue = new Queue(harness.scope.queueNames.diagnose, {
      connection: { url: REDIS_URL },
      prefix: harness.scope.queuePrefix,
    });
    try {
      expect(await queue.getJobCounts("completed", "active", "waiting")).toEqual({
        completed: 1,
        active: 0,
        waiting: 0,
      });
    } finally {
      await queue.close();
    }
    expect(order.filter((m) => /stopped|exited/.test(m))).toEqual([
      "receiver stopped",
      "worker process exited",
      "workers stopped",
    ]);
  });
});
