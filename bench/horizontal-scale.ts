// Horizontal scale: 1, 2 and 4 worker processes on the same queues, 200 tables alerting at once,
// every diagnosis waiting on a simulated catalog with 200 ms of latency. Measures diagnoses per
// second (first alert to last diagnosis posted), the time until the last thread has its
// diagnosis, and each worker's CPU time and peak memory (what deploy/kubernetes requests are
// sized from). Goal: near-linear up to the source limit (the catalog, or the machine's cores).

import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRedisClient } from "../src/adapters/redis/connection.js";
import { loadConfig } from "../src/config.js";
import { startBot } from "../src/main.js";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";
import { startSlackStandIn } from "../src/sim/slack/stand-in.js";
import { deleteKeysMatching, REDIS_URL } from "../test/support/redis.js";
import { alertBody, CHANNEL } from "./_bot-setup.js";

const here = dirname(fileURLToPath(import.meta.url));
const TABLES = 200;
const LATENCY_MS = 200;
/** A small table, so the simulated catalog's own CPU is not what is measured. */
const SCENARIO = ScenarioSchema.parse({
  name: "scale",
  description: "db.events with a short history",
  table: "db.events",
  catalog: {
    tables: [
      {
        name: "db.events",
        snapshots: [
          {
            series: { from: "-30m", to: "-10m", every: "5m" },
            operation: "append",
            committer: { kind: "flink", jobId: "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b", checkpointStart: 1 },
          },
        ],
      },
    ],
  },
});
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").map(Number);

interface Usage {
  cpuSeconds: number;
  peakRssMiB: number;
}

/** CPU time (user + system) and peak resident memory of a live process, from /proc. */
function usageOf(pid: number): Usage {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuSeconds: ticks / 100, peakRssMiB: Number(hwm?.[1] ?? 0) / 1024 };
}

function startWorker(namespace: string, prefix: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(here, "_scale-worker.ts"), namespace, prefix, JSON.stringify(env)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`worker exited with ${code} before it was ready`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
  });
}

async function round(workers: number): Promise<Record<string, number>> {
  const lakehouse = await startLakehouse({ scenario: SCENARIO });
  lakehouse.faults.inject({ service: "catalog", path: "^/", kind: "latency", ms: LATENCY_MS });
  const standIn = await startSlackStandIn();
  const id = randomBytes(4).toString("hex");
  const namespace = `bench-scale-${id}`;
  const prefix = `{bench-scale-q-${id}}`;
  const token = randomBytes(16).toString("hex");
  const env = {
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_SIGNING_SECRET: randomBytes(16).toString("hex"),
    SLACK_API_URL: standIn.apiUrl,
    REDIS_URL,
    ALERT_WEBHOOK_TOKEN: token,
    INCIDENT_CHANNEL: CHANNEL,
    ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
    PORT: "0",
    LOG_LEVEL: "silent",
  };
  const receiver = await startBot(loadConfig(env), {
    role: "serve",
    namespace,
    queuePrefix: prefix,
    port: 0,
  });
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; i < workers; i++) children.push(await startWorker(namespace, prefix, env));
    const before = children.map((c) => usageOf(c.pid as number));
    const started = performance.now();
    await Promise.all(
      Array.from({ length: TABLES }, (_, i) =>
        fetch(`http://127.0.0.1:${receiver.port}/webhooks/alertmanager`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: alertBody(`db.scale${i}`, `scale${id}${i.toString().padStart(8, "0")}`),
        }).then((r) => r.arrayBuffer()),
      ),
    );
    const diagnosed = () => standIn.messages(CHANNEL).filter((m) => m.thread_ts).length;
    const deadline = Date.now() + 120_000;
    let reportsDoneMs = 0;
    while (diagnosed() < TABLES) {
      if (!reportsDoneMs) {
        const counts = await receiver.queues.diagnose.getJobCounts("completed");
        if ((counts.completed ?? 0) >= TABLES) reportsDoneMs = performance.now() - started;
      }
      if (Date.now() > deadline) throw new Error(`only ${diagnosed()} of ${TABLES} diagnoses posted`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsedMs = performance.now() - started;
    const after = children.map((c) => usageOf(c.pid as number));
    const cpu = after.reduce((sum, u, i) => sum + u.cpuSeconds - (before[i]?.cpuSeconds ?? 0), 0);
    return {
      "diagnoses/s": TABLES / (elapsedMs / 1000),
      "last thread diagnosed (ms)": elapsedMs,
      "last report stored (ms)": reportsDoneMs || elapsedMs,
      "worker CPU ms per diagnosis": (cpu * 1000) / TABLES,
      "worker peak RSS (MiB, max)": Math.max(...after.map((u) => u.peakRssMiB)),
    };
  } finally {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            c.removeAllListeners("exit");
            c.once("exit", () => resolve());
            c.kill("SIGTERM");
          }),
      ),
    );
    await receiver.queues.obliterate().catch(() => {});
    await receiver.stop();
    await standIn.close();
    await lakehouse.close();
    const redis = createRedisClient(REDIS_URL, "commands");
    await deleteKeysMatching(redis, [`{${namespace}}:*`, `${prefix}:*`]);
    await redis.quit();
  }
}

export async function run(): Promise<Record<string, number | string>> {
  const result: Record<string, number | string> = {
    setup: `${TABLES} tables at once, catalog latency ${LATENCY_MS} ms, 8 diagnoses at a time per worker`,
  };
  let single = 0;
  for (const workers of WORKERS) {
    const measured = await round(workers);
    for (const [key, value] of Object.entries(measured)) result[`${workers} worker(s): ${key}`] = value;
    const rate = measured["diagnoses/s"] ?? 0;
    if (workers === 1) single = rate;
    else result[`${workers} worker(s): speed-up over 1`] = rate / single;
  }
  return result;
}
