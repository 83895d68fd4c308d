// The slowest source sets the time: three Flink clusters, two Connect clusters and two catalogs
// (the stand-ins in a process of their own), every source answering each request in 50 ms except
// one that takes 2 s. Alert to first diagnosis is set against that one source's own request chain
// as our clients read it (the floor: listing, then every job or connector on it the diagnosis
// reads), floor and bot alternating round by round. Then a source that never answers: alert to
// diagnosis against the source deadline. Goals: <= 1.1x the floor, <= 1.1x the deadline.

import { type ChildProcess, fork } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createEvidencePorts } from "../src/adapters/evidence/from-config.js";
import { loadConfig } from "../src/config.js";
import { matchingConnectors } from "../src/services/investigate/writers.js";
import type { EvidencePorts } from "../src/services/ports.js";
import type { FaultSpec } from "../src/sim/faults.js";
import { alertToFirstDiagnosis, type TimedAlert } from "./_alert-timing.js";
import { percentile, startBenchBots, timed } from "./_bot-setup.js";

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SLOW_MS = 2_000;
const FAST_MS = 50;
/** The whole-source deadline of the bot that meets a silent source (SOURCE_TIMEOUT_MS). */
const DEADLINE_MS = 3_000;
const TABLE = { namespace: ["sales"], name: "orders" };
const ALERT: TimedAlert = {
  // As the Flink job names it: its own catalog name in front (the bot reads it as sales.orders).
  table: "iceberg.sales.orders",
  incidentTable: "sales.orders",
  labels: { job_name: "orders-ingest" },
};

type Kind = "catalog" | "flink" | "connect";
interface Slow {
  kind: Kind;
  server: string;
  /** What it is to the diagnosed table. */
  role: string;
}
const SLOW: Slow[] = [
  { kind: "catalog", server: "lake-eu", role: "the table's catalog" },
  { kind: "flink", server: "flink-eu", role: "the writer's Flink cluster" },
  { kind: "flink", server: "flink-us", role: "another Flink cluster" },
  { kind: "connect", server: "connect-eu", role: "a Connect cluster" },
];
const SILENT: Slow[] = [
  { kind: "flink", server: "flink-us", role: "another Flink cluster" },
  { kind: "connect", server: "connect-us", role: "a Connect cluster" },
];

interface Platform {
  env: Record<string, string>;
  faults(specs: FaultSpec[]): Promise<void>;
  close(): Promise<void>;
}

async function startPlatform(): Promise<Platform> {
  const child: ChildProcess = fork(join(here, "_many-sources-platform.ts"), [], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const ready = await new Promise<{ env: Record<string, string> }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { env: Record<string, string> }));
    child.once("exit", (code) => reject(new Error(`platform exited (${code})`)));
  });
  return {
    env: ready.env,
    faults: (specs) =>
      new Promise((resolve) => {
        child.once("message", () => resolve());
        child.send({ type: "faults", specs });
      }),
    close: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve());
        child.send({ type: "stop" });
      }),
  };
}

/** The one source's fault first (the first match wins), then 50 ms on every other server. */
function faultsFor(slow: Slow, fault: Pick<FaultSpec, "kind" | "ms">): FaultSpec[] {
  const service = slow.kind;
  return [
    { service, server: slow.server, path: "^/", ...fault },
    ...(["catalog", "flink", "connect", "prometheus"] as const).map(
      (s): FaultSpec => ({ service: s, path: "^/", kind: "latency", ms: FAST_MS }),
    ),
  ];
}

/** The slow source's own chain, read by our clients the way a diagnosis reads it. */
async function ownChain(ports: EvidencePorts, slow: Slow): Promise<void> {
  if (slow.kind === "catalog") {
    await ports.catalogs?.byName(slow.server)?.port.loadTable(TABLE);
    return;
  }
  if (slow.kind === "flink") {
    const jobs = await ports.flink!.listJobs();
    await Promise.all(
      jobs
        .filter((j) => j.source === slow.server)
        .map((j) => ports.flink!.getJobEvidence(j.jobId, TABLE, slow.server)),
    );
    return;
  }
  const connectors = await ports.connect!.listConnectors();
  await Promise.all(
    matchingConnectors(connectors, TABLE)
      .filter((m) => m.cluster === slow.server)
      .map((m) => ports.connect!.getConnectorEvidence(m.name, m.cluster)),
  );
}

const ratio = (ours: number[], floor: number[]) => percentile(ours, 50) / percentile(floor, 50);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

export async function run(): Promise<Record<string, number | string>> {
  const platform = await startPlatform();
  const out: Record<string, number | string> = {
    "sources (Flink / Connect / catalogs)": "3 / 2 / 2",
    "slow source per request (ms) / the rest (ms)": `${SLOW_MS} / ${FAST_MS}`,
    rounds: ROUNDS,
  };
  const env = { ...platform.env, SOURCE_TIMEOUT_MS: "20000" };
  const bench = await startBenchBots("many-sources", 1, {}, env);
  const ports = createEvidencePorts(loadConfig(env));
  let n = 0;
  try {
    await platform.faults([]);
    // Warm-up: connections and code paths, for the bot and for our own clients alike.
    await alertToFirstDiagnosis(bench, ALERT, n++);
    for (const slow of SLOW) await ownChain(ports, slow);
    for (const slow of SLOW) {
      await platform.faults(faultsFor(slow, { kind: "latency", ms: SLOW_MS }));
      const floor: number[] = [];
      const ours: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const measureFloor = async () => floor.push(await timed(() => ownChain(ports, slow)));
        const measureOurs = async () => ours.push(await alertToFirstDiagnosis(bench, ALERT, n++));
        if (i % 2 === 0) {
          await measureFloor();
          await measureOurs();
        } else {
          await measureOurs();
          await measureFloor();
        }
      }
      const label = `slow ${slow.kind} ${slow.server} (${slow.role})`;
      out[`${label}: own chain p50 / p99 (ms)`] =
        `${percentile(sorted(floor), 50)} / ${percentile(sorted(floor), 99)}`;
      out[`${label}: alert to diagnosis p50 / p99 (ms)`] =
        `${percentile(sorted(ours), 50)} / ${percentile(sorted(ours), 99)}`;
      out[`${label}: p50 ratio`] = ratio(sorted(ours), sorted(floor));
      out[`${label}: p99 ratio`] = percentile(sorted(ours), 99) / percentile(sorted(floor), 99);
    }
  } finally {
    await bench.close();
  }
  // A source that never answers: a bot whose source deadline is DEADLINE_MS.
  const deadlineEnv = { ...platform.env, SOURCE_TIMEOUT_MS: String(DEADLINE_MS) };
  const silentBench = await startBenchBots("many-sources-silent", 1, {}, deadlineEnv);
  try {
    await platform.faults([]);
    await alertToFirstDiagnosis(silentBench, ALERT, n++);
    for (const silent of SILENT) {
      await platform.faults(faultsFor(silent, { kind: "hang" }));
      const ours: number[] = [];
      for (let i = 0; i < ROUNDS; i++) ours.push(await alertToFirstDiagnosis(silentBench, ALERT, n++));
      const label = `silent ${silent.kind} ${silent.server} (${silent.role})`;
      out[`${label}: source deadline (ms)`] = DEADLINE_MS;
      out[`${label}: alert to diagnosis p50 / p99 (ms)`] =
        `${percentile(sorted(ours), 50)} / ${percentile(sorted(ours), 99)}`;
      out[`${label}: p50 / deadline`] = percentile(sorted(ours), 50) / DEADLINE_MS;
      out[`${label}: p99 / deadline`] = percentile(sorted(ours), 99) / DEADLINE_MS;
    }
  } finally {
    await silentBench.close();
    await platform.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
