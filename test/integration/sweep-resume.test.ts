// A worker process killed mid-sweep (SIGKILL: no shutdown, its jobs still locked) loses nothing:
// another worker takes the stalled jobs over once their locks lapse, every table is graded once,
// and one digest is posted.

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { type Bot, startBot } from "../../src/main.js";
import { REDIS_URL } from "../support/redis.js";
import { CHANNEL, eventually, type Harness, quiescent, startHarness } from "./bot/harness.js";
import { digests, rankedTables, slash } from "./sweep-support.js";

// Four catalog round trips a second: the sweep's 25 or so tasks take several seconds.
const SLOW_BOT_CONFIG = `
defaults:
  approvers: [U0ALICE]
sweep:
  ratePerSecond: { catalog: 4, flink: 50, connect: 50 }
  worst: 6
`;

let h: Harness | undefined;
let child: ChildProcess | undefined;
let rescuer: Bot | undefined;
afterEach(async () => {
  child?.kill("SIGKILL");
  await rescuer?.stop();
  await h?.close();
  h = undefined;
  child = undefined;
  rescuer = undefined;
});

function startChildWorker(harness: Harness): Promise<ChildProcess> {
  const lake = harness.lakehouse!;
  const env = {
    REDIS_URL,
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_API_URL: harness.standIn.apiUrl,
    INCIDENT_CHANNEL: CHANNEL,
    ICEBERG_CATALOG_URL: lake.urls.catalog,
    CONNECT_REST_URL: lake.urls.connect,
    BOT_CONFIG: SLOW_BOT_CONFIG,
    LOG_LEVEL: "silent",
    SOURCE_TIMEOUT_MS: "5000",
  };
  const options = {
    namespace: harness.scope.namespace,
    queuePrefix: harness.scope.queuePrefix,
    queueNames: harness.scope.queueNames,
  };
  const script = path.resolve(import.meta.dirname, "../support/bot-worker-child.ts");
  const proc = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, BOT_CHILD: JSON.stringify({ env, options }) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    proc.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(proc);
    });
    proc.once("exit", (code) => reject(new Error(`the worker child exited early (${code})`)));
  });
}

describe("a sweep survives a worker killed mid-sweep", () => {
  it("another worker finishes it: every table graded, one digest", async () => {
    // The receiver alone: the sweep's work can only run in the worker processes.
    h = await startHarness("sweep-kill", {
      scenario: "sweep-catalog",
      botConfig: SLOW_BOT_CONFIG,
      botOptions: { role: "serve" },
    });
    const harness = h;
    // Slow table loads: a table job is surely in flight when the worker dies.
    harness.lakehouse!.faults.inject({
      service: "catalog",
      path: /^\/v1\/namespaces\/[^/]+\/tables\/[^/]+$/,
      kind: "latency",
      ms: 400,
    });
    child = await startChildWorker(harness);
    await slash(harness, "sweep");

    const store = harness.bots[0]!.sweep.store;
    const sweepId = await eventually(() => store.running(), "the sweep to start");
    const results = `{${harness.scope.namespace}}:sweep:${sweepId}:results`;
    await eventually(async () => (await harness.scope.redis.hlen(results)) >= 2, "two tables graded");
    const exited = new Promise((resolve) => child!.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
    const pendingKey = `{${harness.scope.namespace}}:sweep:${sweepId}:pending`;
    const gradedBefore = await harness.scope.redis.hlen(results);
    expect(gradedBefore).toBeLessThan(9);
    expect(await harness.scope.redis.scard(pendingKey)).toBeGreaterThan(0);

    rescuer = await startBot(harness.config, {
      role: "worker",
      namespace: harness.scope.namespace,
      queuePrefix: harness.scope.queuePrefix,
      queueNames: harness.scope.queueNames,
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
      backoffMs: 100,
    });
    const [digest] = await eventually(() => digests(harness).length > 0 && digests(harness), "the digest");
    expect(digest!.text).toBe("Sweep: 9 tables, 3 with failing checks, 1 failing now");
    expect(rankedTables(digest!).slice(0, 2)).toEqual(["sales.payments", "sales.orders"]);
    const latest = await store.latest();
    expect(latest).toMatchObject({ sweepId, tables: 9, errorsTotal: 0 });
    expect(await store.running()).toBeUndefined();
    await quiescent(harness);
    expect(digests(harness)).toHaveLength(1);
  });
});
