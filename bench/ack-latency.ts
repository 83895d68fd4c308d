// Ack latency of signed `/iceberg diagnose` slash commands, 200 at once, in `start` mode (workers
// in the supervised child) and in `serve` mode (a separate `worker` process), against the floor:
// a bare Bolt app that only acks. Every app runs in its own process, from the real commands; the
// load comes from another process, in alternating rounds. The workers are busy: every command
// queues a real diagnosis of a 2,000-snapshot table, so the diagnoses of earlier rounds are still
// running while later rounds are acked. Goal: ack p99 <= 1.0x the bare Bolt app's in every round, in
// both modes.

import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";
import { startSlackStandIn } from "../src/sim/slack/stand-in.js";
import { CHANNEL, percentile } from "./_bot-setup.js";
import {
  botProcess,
  cpuMs,
  loadProcess,
  median,
  privateRedis,
  type Running,
  scriptProcess,
} from "./_processes.js";
import { scenarioFor } from "./diagnose-scale.js";

const CONCURRENCY = 200;
// Ten counted rounds: one round's p99 moves by half either way with the workers' load, so the
// pooled p99 of five still swings from run to run by more than the 10% the goal allows.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const SNAPSHOTS = 2_000;

type LoadResult = Record<string, { latencies: number[]; rounds: number[][]; cpuMsPerRequest: number[] }>;

export async function run(): Promise<Record<string, number | string>> {
  const secret = randomBytes(16).toString("hex");
  const redis = await privateRedis();
  const standIn = await startSlackStandIn();
  const lakehouse = await startLakehouse({ scenario: ScenarioSchema.parse(scenarioFor(SNAPSHOTS)) });
  const running: Running[] = [];
  try {
    const env = (db: number) => ({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: standIn.apiUrl,
      // One Redis, a database per deployment: their queues never mix.
      REDIS_URL: `${redis.url}/${db}`,
      INCIDENT_CHANNEL: CHANNEL,
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      SOURCE_TIMEOUT_MS: "30000",
    });
    const profile = process.env.BENCH_CPU_PROF
      ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
    const start = await botProcess("start", env(1), profile);
    running.push(start);
    const serve = await botProcess("serve", env(2), profile);
    running.push(serve);
    running.push(await botProcess("worker", env(2)));
    // Profiled too when asked, so the bot's profile can be read against the floor's.
    const bare = await scriptProcess("_bare-bolt.mjs", [secret], profile);
    running.push(bare);
    const url = (port: number) => `http://127.0.0.1:${port}/slack/events`;
    const servers = { start, serve, bare };
    const cpuBefore = Object.fromEntries(Object.entries(servers).map(([k, r]) => [k, cpuMs(r.pid)]));
    const result = await loadProcess<LoadResult>("_ack-load.ts", {
      targets: [
        { name: "start", url: url(start.port), pid: start.pid },
        { name: "serve", url: url(serve.port), pid: serve.pid },
        { name: "bare", url: url(bare.port), pid: bare.pid },
      ],
      secret,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
    });
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const bareAll = sorted(result.bare!.latencies);
    const out: Record<string, number | string> = {
      // Per-round ratios swing with what else the machine runs; this says how busy it was.
      "ack.machine_load_average_at_end (1 min)": loadavg()[0] ?? 0,
      "ack.concurrency": CONCURRENCY,
      "ack.rounds (after a warm-up round)": ROUNDS,
      "ack.table_snapshots (each command's diagnosis)": SNAPSHOTS,
      "ack.bare_bolt_p50_ms": percentile(bareAll, 50),
      "ack.bare_bolt_p99_ms": percentile(bareAll, 99),
    };
    for (const mode of ["start", "serve"] as const) {
      const ours = sorted(result[mode]!.latencies);
      out[`ack.${mode}_p50_ms`] = percentile(ours, 50);
      out[`ack.${mode}_p99_ms`] = percentile(ours, 99);
      out[`ack.${mode}_p50_ratio`] = percentile(ours, 50) / percentile(bareAll, 50);
      out[`ack.${mode}_p99_ratio`] = percentile(ours, 99) / percentile(bareAll, 99);
      const perRound = result[mode]!.rounds.map(
        (r, i) => percentile(sorted(r), 99) / percentile(sorted(result.bare!.rounds[i]!), 99),
      );
      out[`ack.${mode}_p99_ratio_per_round`] = perRound.map((ratio) => ratio.toFixed(2)).join(" ");
      out[`ack.${mode}_p99_ratio_median_of_rounds`] = median(perRound);
      out[`ack.${mode}_p99_ms_per_round`] = result[mode]!.rounds.map((r) => percentile(sorted(r), 99)).join(
        " ",
      );
      // Where a round's p99 ratio is above 1 while its CPU ratio is not, the time went to waiting
      // for a CPU (the machine's other load), not to work of the receiver's own.
      const cpuPerRound = result[mode]!.cpuMsPerRequest.map((ms, i) => ms / result.bare!.cpuMsPerRequest[i]!);
      out[`ack.${mode}_cpu_ratio_per_round`] = cpuPerRound.map((ratio) => ratio.toFixed(2)).join(" ");
    }
    out["ack.bare_bolt_p99_ms_per_round"] = result
      .bare!.rounds.map((r) => percentile(sorted(r), 99))
      .join(" ");
    // The receivers' own CPU per request (warm-up round included): steadier than latency.
    const requests = CONCURRENCY * (ROUNDS + 1);
    for (const [name, r] of Object.entries(servers)) {
      const before = cpuBefore[name];
      const after = cpuMs(r.pid);
      if (before !== undefined && after !== undefined)
        out[`ack.${name}_cpu_ms_per_request`] = (after - before) / requests;
    }
    // How far behind the workers were when the load stopped: proof they were busy throughout.
    out["ack.diagnoses_posted_during_run"] = standIn.messages(CHANNEL).length;
    return out;
  } finally {
    for (const r of running.reverse()) await r.close();
    await lakehouse.close();
    await standIn.close();
    await redis.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
