// The sweep at scale: 10,000 tables in 200 namespaces on the simulated catalog (one in ten at
// risk), swept by two worker processes sharing a catalog budget of BENCH_SWEEP_RPS requests per
// second (BullMQ's limiter). Measured: wall time against the floor (the catalog round trips the
// sweep made, divided by the budget), each worker's peak memory, its heap after GC sampled every
// BENCH_SWEEP_SAMPLE tables with the slope from the 10,000th table on, and Redis memory per table
// (INFO memory before and after, MEMORY USAGE of the sweep's keys; a private redis-server, so
// nothing else is counted). A smaller sweep of 1,000 tables first shows whether worker memory
// grows with the catalog. `npm run bench -- sweep-scale --tables 100000` sweeps 100,000 tables
// (about nine minutes at the default budget). Goal: within 1.1x of the floor, heap flat.

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
const SIZES = (tablesFlag() ?? process.env.BENCH_SWEEP_SIZES ?? "1000,10000").split(",").map(Number);
/** Heap is sampled each time this many more tables have been read (default: 20 samples a sweep). */
const SAMPLE_EVERY = process.env.BENCH_SWEEP_SAMPLE ? Number(process.env.BENCH_SWEEP_SAMPLE) : undefined;
/** Heap growth is judged from here on: the first tables warm caches and pools. */
const FLAT_FROM = 10_000;
const NAMESPACES = 200;
const WORKERS = 2;

/** `--tables 100000` (or `--tables=1000,100000`) on the command line. */
function tablesFlag(): string | undefined {
  const args = process.argv;
  const i = args.findIndex((a) => a === "--tables" || a.startsWith("--tables="));
  if (i < 0) return undefined;
  return args[i]!.includes("=") ? args[i]!.split("=")[1] : args[i + 1];
}

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

interface WorkerReport {
  maxRssBytes: number;
  peakHeapBytes: number;
  heapAfterGcBytes: number;
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const num = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const den = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return num / den;
}

/** MEMORY USAGE of every key the sweep left (its store's and its queues'), by key, prefix taken off. */
async function keyMemory(redis: Redis, namespace: string): Promise<Record<string, number>> {
  const prefix = `{${namespace}}:sweep:`;
  const out: Record<string, number> = {};
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys)
      out[key.slice(prefix.length)] = Number(await redis.memory("USAGE", key, "SAMPLES", 0));
  } while (cursor !== "0");
  return out;
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
  const every = SAMPLE_EVERY ?? Math.max(500, Math.round(tables / 20));
  const heap: { tables: number; bytes: number[] }[] = [];
  let nextSample = every;
  for (;;) {
    peakRedis = Math.max(peakRedis, await usedMemory(redis));
    // The bench's namespace is its own: the first digest is this sweep's (whole or partial).
    if (await store.latest()) break;
    const sweepId = await store.running();
    const read = sweepId ? ((await store.counters(sweepId)).tables ?? 0) : 0;
    if (read >= nextSample) {
      const sampled = await Promise.all(workers.map((w) => ask<WorkerReport>(w, "report")));
      heap.push({ tables: read, bytes: sampled.map((r) => r.heapAfterGcBytes) });
      nextSample = (Math.floor(read / every) + 1) * every;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const wallMs = Date.now() - started;
  const after = await usedMemory(redis);
  const catalogRequests = lake.requests.slice(requestsBefore).filter((r) => r.service === "catalog").length;
  const reports = await Promise.all(workers.map((w) => ask<WorkerReport>(w, "report")));
  const latest = (await store.latest())!;
  const keys = await keyMemory(redis, namespace);
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
    heap,
    keys,
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
      out[`${tables} tables: left out (over a budget)`] =
        (r.latest.skipped ?? []).map((s) => `${s.reason}=${s.count}`).join(" ") || "none";
      out[`${tables} tables: catalog round trips`] = r.catalogRequests;
      out[`${tables} tables: wall time (s)`] = r.wallMs / 1000;
      out[`${tables} tables: floor at the budget (s)`] = r.floorMs / 1000;
      out[`${tables} tables: wall / floor`] = r.wallMs / r.floorMs;
      r.reports.forEach((w, i) => {
        out[`${tables} tables: worker ${i + 1} peak RSS / peak heap / heap after GC (MiB)`] =
          `${mb(w.maxRssBytes)} / ${mb(w.peakHeapBytes)} / ${mb(w.heapAfterGcBytes)}`;
      });
      const flat = r.heap.filter((h) => h.tables >= Math.min(FLAT_FROM, tables / 2));
      r.reports.forEach((_, i) => {
        const points = flat.map((h) => ({ x: h.tables, y: h.bytes[i]! }));
        out[
          `${tables} tables: worker ${i + 1} heap after GC, samples from table ${points[0]?.x ?? "-"} (MiB)`
        ] = points.map((p) => (p.y / 2 ** 20).toFixed(1)).join(" ");
        out[`${tables} tables: worker ${i + 1} heap slope (bytes per 1,000 tables)`] = Math.round(
          slope(points) * 1000,
        );
      });
      out[`${tables} tables: Redis retained per table (bytes, INFO used_memory)`] = Math.round(
        r.retained / tables,
      );
      out[`${tables} tables: Redis peak per table (bytes, INFO used_memory)`] = Math.round(r.peak / tables);
      const keyTotal = Object.values(r.keys).reduce((a, b) => a + b, 0);
      out[`${tables} tables: Redis per table (bytes, MEMORY USAGE of its store and queue keys)`] = Math.round(
        keyTotal / tables,
      );
      out[`${tables} tables: store and queue keys (bytes, MEMORY USAGE)`] = Object.entries(r.keys)
        .sort((a, b) => b[1] - a[1])
        .map(([key, bytes]) => `${key}=${bytes}`)
        .join(" ");
    }
  } finally {
    redis.disconnect();
    server.kill("SIGTERM");
  }
  return out;
}
