// Alert to first diagnosis posted, with 300 ms injected in front of every evidence request, next
// to the slowest source's own round trip: the time our client needs to read that one source on
// its own (several requests for Flink). Sources are read in parallel, so the alert-to-diagnosis
// time should stay close to the slowest of them. Goal: <= 1.2x.

import { createEvidencePorts } from "../src/adapters/evidence/from-config.js";
import { loadConfig } from "../src/config.js";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { alertToFirstDiagnosis, type TimedAlert } from "./_alert-timing.js";
import { type BenchBots, fixedDiagnose, percentile, startBenchBots, timed } from "./_bot-setup.js";

const INJECTED_MS = 300;
const RUNS = 5;
const WRITER_JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const BOT_CONFIG = `tables:\n  db.events:\n    flinkJobName: events-ingest\n    flinkJob: ${WRITER_JOB}\n`;
const ALERT: TimedAlert = {
  table: "iceberg.db.events",
  incidentTable: "db.events",
  labels: { job_name: "events-ingest" },
};
const SERVICES = ["catalog", "flink", "connect", "prometheus"] as const;

/** Each source read alone through our own clients, as a diagnosis reads it. */
async function sourceRoundTrips(
  urls: Record<(typeof SERVICES)[number], string>,
): Promise<Record<string, number>> {
  const ports = createEvidencePorts(
    loadConfig({
      ICEBERG_CATALOG_URL: urls.catalog,
      FLINK_REST_URL: urls.flink,
      CONNECT_REST_URL: urls.connect,
      PROMETHEUS_URL: urls.prometheus,
    }),
  );
  const table = { namespace: ["db"], name: "events" };
  const end = Date.now();
  return {
    catalog: await timed(async () => ports.catalog?.loadTable(table)),
    flink: await timed(async () => {
      await Promise.all([ports.flink?.listJobs(), ports.flink?.getJobEvidence(WRITER_JOB, table)]);
    }),
    connect: await timed(async () => ports.connect?.listConnectors()),
    prometheus: await timed(async () =>
      ports.prometheus?.queryRange("lastCommitDurationMs", end - 3 * 3_600_000, end, 300),
    ),
  };
}

export async function run(): Promise<Record<string, number | string>> {
  const lakehouse = await startLakehouse({ scenario: "competing-appends" });
  for (const service of SERVICES) {
    lakehouse.faults.inject({ service, path: "^/", kind: "latency", ms: INJECTED_MS });
  }
  const bench = await startBenchBots(
    "alert-diag",
    1,
    { now: () => lakehouse.clock.now() },
    {
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      CONNECT_REST_URL: lakehouse.urls.connect,
      PROMETHEUS_URL: lakehouse.urls.prometheus,
      BOT_CONFIG,
    },
  );
  try {
    await sourceRoundTrips(lakehouse.urls); // warm-up
    const roundTrips = await sourceRoundTrips(lakehouse.urls);
    const slowest = Math.max(...Object.values(roundTrips));
    const before = lakehouse.requests.length;
    const latencies = await alertToDiagnosis(bench);
    const perSource: Record<string, number> = {};
    for (const r of lakehouse.requests.slice(before)) perSource[r.service] = (perSource[r.service] ?? 0) + 1;
    // The same path with evidence gathering replaced by a fixed report: the bot's own share.
    const bare = await startBenchBots(
      "alert-diag-bare",
      1,
      { diagnose: fixedDiagnose },
      { BOT_CONFIG: BOT_CONFIG },
    );
    let overhead: number[];
    try {
      overhead = await alertToDiagnosis(bare);
    } finally {
      await bare.close();
    }
    return {
      "alert_to_diagnosis.injected_ms_per_source": INJECTED_MS,
      "alert_to_diagnosis.source_round_trips_ms": Object.entries(roundTrips)
        .map(([service, ms]) => `${service}=${Math.round(ms)}`)
        .join(" "),
      "alert_to_diagnosis.slowest_source_round_trip_ms": Math.round(slowest),
      "alert_to_diagnosis.p50_over_slowest_source": percentile(latencies, 50) / slowest,
      "alert_to_diagnosis.runs": RUNS,
      "alert_to_diagnosis.p50_ms": percentile(latencies, 50),
      "alert_to_diagnosis.max_ms": percentile(latencies, 100),
      "alert_to_diagnosis.bot_only_p50_ms": percentile(overhead, 50),
      "alert_to_diagnosis.source_requests_per_run": Object.entries(perSource)
        .map(([service, n]) => `${service}=${n / RUNS}`)
        .join(" "),
    };
  } finally {
    await bench.close();
    await lakehouse.close();
  }
}

async function alertToDiagnosis(bench: BenchBots): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < RUNS; i++) latencies.push(await alertToFirstDiagnosis(bench, ALERT, i));
  return latencies.sort((a, b) => a - b);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
