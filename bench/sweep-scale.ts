// The sweep at scale: 10,000 tables in 200 namespaces on the simulated catalog (one in ten at
// risk), swept by two worker processes sharing a catalog budget of BENCH_SWEEP_RPS requests per
// second (BullMQ's limiter). Measured: wall time against the floor (the catalog round trips the
// sweep made, divided by the budget), each worker's peak memory, and Redis memory per table (a
// private redis-server, so nothing else is counted). A smaller sweep of 1,000 tables first shows
// whether worker memory grows with the catalog. Goal: within 1.2x of the floor, memory flat.

import { type ChildProcess, fork, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { createSweepQueues } from "../src/adapters/queue/sweep-queue.js";
import { SweepStore } from "../src/adapters/store/sweep-store.js";
import { type Lakehouse, startLakehouse } from "../src/sim/lakehouse.js";
import { type ScenarioInput, ScenarioSchema } from "../src/sim/scenario/schema.js";
import { freePort } from "../src/util/free-port.js";

const here = dirname(fileURLToPath(import.meta.url));
const RPS = Number(process.env.BENCH_SWEEP_RPS ?? 200);
const SIZES = (process.env.BENCH_SWEEP_SIZES ?? "1000,10000").split(",").map(Number);
const NAMESPACES = 200;
const WORKERS = 2;

function scenarioFor(tables: number): ScenarioInput {
  const perNamespace = Math.ceil(tables / NAMESPACES);
  const list: NonNullable<ScenarioInput["catalog"]>["tables"] = [];
  for (let i = 0; i < tables; i++) {
    const ns = `ns${String(Math.floor(i / perNamespace)).padStart(3, "0")}`;
    const atRisk = i % 10 === 0;
    list.push({
      name: `${ns}.t${String(i % perNamespace).padStart(3, "0")}`,
      properties: {
        "write.distribution-mode": "hash",
        "write.metadata.delete-after-commit.enabled": "true",
        ...(atRisk ? { "commit.retry.num-retries": "2" } : {}),
      },
      snapshots: [
        {
          series: { from: "-3d", to: "-1h", every: "1d" },
          operation: "append",
          committer: { kind: "spark", appId: `application_1700000000000_${String(i).padStart(4, "0")}` },
        },
      ],
    });
  }
  return {
    name: `sweep-${tables}`,
    description: `${tables} tables`,
    table: list[0]!.name,
    catalog: { tables: list, pageSize: 100 },
  };
}

async function startRedis(port: number): Promise<ChildProcess> {
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  for (let i = 0; i < 100; i++) {
    const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
    probe.on("error", () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === "PONG") return proc;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("redis-server did not start");
}

function startWorker(
  env: Record<string, string>,
  namespace: string,
  queuePrefix: string,
): Promise<ChildProcess> {
  const child = fork(join(here, "_sweep-worker.ts"), [], {
    execArgv: ["--expose-gc", "--import", "tsx"],
    env: { ...process.env, BENCH_WORKER: JSON.stringify({ env, namespace, queuePrefix }) },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`worker exited (${code})`)));
  });
}

function ask<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as T));
    child.send({ type });
  });
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

async function sweepOnce(tables: number, redisUrl: string, redis: Redis) {
  const lake: Lakehouse = await startLakehouse({ scenario: ScenarioSchema.parse(scenarioFor(tables)) });
  const namespace = `bench-${tables}`;
  const queuePrefix = `{bench-${tables}}`;
  const env = {
    REDIS_URL: redisUrl,
    ICEBERG_CATALOG_URL: lake.urls.catalog,
    LOG_LEVEL: "silent",
    BOT_CONFIG: `sweep:\n  schedule: ""\n  ratePerSecond: { catalog: ${RPS} }\n`,
  };
  const workers = await Promise.all(
    Array.from({ length: WORKERS }, () => startWorker(env, namespace, queuePrefix)),
  );
  const queues = createSweepQueues({ connection: redis, prefix: queuePrefix });
  const store = new SweepStore(redis, namespace);
  const before = await usedMemory(redis);
  let peakRedis = before;
  const requestsBefore = lake.requests.length;
  const started = Date.now();
  await queues.control.add("start", { kind: "start", trigger: "schedule" }, { jobId: `bench-${tables}` });
  for (;;) {
    peakRedis = Math.max(peakRedis, await usedMemory(redis));
    const latest = await store.latest();
    if (latest && latest.tables + latest.errorsTotal >= tables) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const wallMs = Date.now() - started;
  const after = await usedMemory(redis);
  const catalogRequests = lake.requests.slice(requestsBefore).filter((r) => r.service === "catalog").length;
  const reports = await Promise.all(
    workers.map((w) =>
      ask<{ maxRssBytes: number; peakHeapBytes: number; heapAfterGcBytes: number }>(w, "report"),
    ),
  );
  const latest = (await store.latest())!;
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((resolve) => {
          w.once("exit", resolve);
          w.send({ type: "stop" });
        }),
    ),
  );
  await queues.close();
  await lake.close();
  const floorMs = (catalogRequests / RPS) * 1000;
  return {
    wallMs,
    floorMs,
    catalogRequests,
    reports,
    retained: after - before,
    peak: peakRedis - before,
    latest,
  };
}

export async function run(): Promise<Record<string, number | string>> {
  const port = await freePort();
  const server = await startRedis(port);
  const redis = new Redis({ port, maxRetriesPerRequest: null });
  const out: Record<string, number | string> = { "catalog budget (requests/s)": RPS, workers: WORKERS };
  try {
    for (const tables of SIZES) {
      const r = await sweepOnce(tables, `redis://127.0.0.1:${port}`, redis);
      const mb = (b: number) => Math.round(b / 1024 / 1024);
      out[`${tables} tables: graded / failing / unread`] =
        `${r.latest.tables} / ${r.latest.failingTables} / ${r.latest.errorsTotal}`;
      out[`${tables} tables: catalog round trips`] = r.catalogRequests;
      out[`${tables} tables: wall time (s)`] = r.wallMs / 1000;
      out[`${tables} tables: floor at the budget (s)`] = r.floorMs / 1000;
      out[`${tables} tables: wall / floor`] = r.wallMs / r.floorMs;
      r.reports.forEach((w, i) => {
        out[`${tables} tables: worker ${i + 1} peak RSS / peak heap / heap after GC (MiB)`] =
          `${mb(w.maxRssBytes)} / ${mb(w.peakHeapBytes)} / ${mb(w.heapAfterGcBytes)}`;
      });
      out[`${tables} tables: Redis retained per table (bytes)`] = Math.round(r.retained / tables);
      out[`${tables} tables: Redis peak per table (bytes)`] = Math.round(r.peak / tables);
    }
  } finally {
    redis.disconnect();
    server.kill("SIGTERM");
  }
  return out;
}
