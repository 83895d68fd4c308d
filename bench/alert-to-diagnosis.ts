// Alert to first diagnosis posted, with 300 ms injected in front of every evidence source, next
// to the slowest single source round trip: sources are read in parallel, so the two should be
// close (plus the bot's own queueing and Slack posting).

import { startLakehouse } from "../src/sim/lakehouse.js";
import { type BenchBots, CHANNEL, fixedDiagnose, percentile, startBenchBots, timed } from "./_bot-setup.js";

const INJECTED_MS = 300;
const RUNS = 5;
const BOT_CONFIG = "tables:\n  db.events:\n    flinkJobName: events-ingest\n";

const PROBES = {
  catalog: "/v1/config",
  flink: "/jobs/overview",
  connect: "/connectors",
  prometheus: "/api/v1/query?query=up",
} as const;

export async function run(): Promise<Record<string, number | string>> {
  const lakehouse = await startLakehouse({ scenario: "competing-appends" });
  for (const service of Object.keys(PROBES) as Array<keyof typeof PROBES>) {
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
    const roundTrips: number[] = [];
    for (const [service, path] of Object.entries(PROBES)) {
      const base = lakehouse.urls[service as keyof typeof PROBES];
      roundTrips.push(await timed(async () => (await fetch(`${base}${path}`)).text()));
    }
    const slowest = Math.max(...roundTrips);
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
      "alert_to_diagnosis.slowest_source_round_trip_ms": Math.round(slowest),
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
  const bot = bench.bots[0]!;
  for (let i = 0; i < RUNS; i++) {
    const replies = () => bench.standIn.messages(CHANNEL).filter((m) => m.thread_ts).length;
    const before = replies();
    latencies.push(
      await timed(async () => {
        const response = await fetch(`http://127.0.0.1:${bot.port}/webhooks/alertmanager`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${bench.webhookToken}` },
          body: alertBody(i),
        });
        if (response.status !== 202) throw new Error(`webhook answered ${response.status}`);
        const deadline = Date.now() + 30_000;
        while (replies() === before) {
          if (Date.now() > deadline) throw new Error("no diagnosis was posted within 30 s");
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }),
    );
    // Close the incident so the next alert opens a fresh one and runs a fresh diagnosis.
    const incident = await bot.store.openIncidentFor("db.events");
    if (incident) await bot.store.close(incident, "resolved", Date.now());
  }
  return latencies.sort((a, b) => a - b);
}

function alertBody(n: number): string {
  return JSON.stringify({
    version: "4",
    status: "firing",
    alerts: [
      {
        status: "firing",
        labels: { alertname: "IcebergCommitStalled", table: "iceberg.db.events", job_name: "events-ingest" },
        annotations: {},
        startsAt: new Date(Date.now() - n * 1000).toISOString(),
        endsAt: "0001-01-01T00:00:00Z",
        fingerprint: `bench${n.toString().padStart(11, "0")}`,
      },
    ],
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
