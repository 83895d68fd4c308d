// An alert storm: 5,000 Alertmanager notifications about 50 tables, 50 in flight, spread over
// two `start` processes on one Redis, against the floor: two bare node servers that only parse
// the JSON and answer 202. Every server runs in its own process, the load comes from another,
// in alternating rounds; the workers are busy posting the 50 threads and their diagnoses while
// the later rounds arrive. Goals: intake p99 <= 3x the floor's, one thread per table, no non-2xx.

import { randomBytes } from "node:crypto";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { startSlackStandIn } from "../src/sim/slack/stand-in.js";
import { CHANNEL, percentile } from "./_bot-setup.js";
import { botProcess, loadProcess, privateRedis, type Running, scriptProcess } from "./_processes.js";

const ALERTS = Number(process.env.BENCH_ALERTS ?? 5_000);
const TABLES = 50;
const IN_FLIGHT = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

type LoadResult = Record<
  string,
  { latencies: number[]; rounds: number[][]; failed: number; seconds: number }
>;

export async function run(): Promise<Record<string, number | string>> {
  const token = randomBytes(16).toString("hex");
  const redis = await privateRedis();
  const standIn = await startSlackStandIn();
  // A catalog that does not know the storm's tables: each diagnosis is short, and real.
  const lakehouse = await startLakehouse({ scenario: "quiet-table" });
  const running: Running[] = [];
  try {
    const env = {
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: randomBytes(16).toString("hex"),
      SLACK_API_URL: standIn.apiUrl,
      REDIS_URL: redis.url,
      ALERT_WEBHOOK_TOKEN: token,
      INCIDENT_CHANNEL: CHANNEL,
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
    };
    const profile = process.env.BENCH_CPU_PROF
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
      : [];
    const bots = [await botProcess("start", env, profile), await botProcess("start", env, profile)];
    running.push(...bots);
    const bares = [await scriptProcess("_bare-json.mjs"), await scriptProcess("_bare-json.mjs")];
    running.push(...bares);
    const urls = (rs: Running[]) => rs.map((r) => `http://127.0.0.1:${r.port}`);
    const result = await loadProcess<LoadResult>("_storm-load.ts", {
      targets: [
        { name: "bot", urls: urls(bots) },
        { name: "bare", urls: urls(bares) },
      ],
      token,
      alerts: ALERTS,
      tables: TABLES,
      inFlight: IN_FLIGHT,
      rounds: ROUNDS,
    });
    // Wait for the threads and their diagnoses to settle.
    const roots = () => standIn.messages(CHANNEL).filter((m) => !m.thread_ts && !m.ephemeralUser);
    const replies = () => standIn.messages(CHANNEL).filter((m) => m.thread_ts);
    const deadline = Date.now() + 120_000;
    while ((roots().length < TABLES || replies().length < TABLES) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rootTexts = roots().map((m) => m.text);
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const bot = sorted(result.bot!.latencies);
    const bare = sorted(result.bare!.latencies);
    return {
      "storm.alerts (per side)": ALERTS,
      "storm.tables": TABLES,
      "storm.in_flight": IN_FLIGHT,
      "storm.rounds": ROUNDS,
      "storm.threads_created": rootTexts.length,
      "storm.duplicate_threads": rootTexts.length - new Set(rootTexts).size,
      "storm.diagnoses_posted": replies().length,
      "storm.non_2xx": result.bot!.failed,
      "storm.intake_p50_ms": percentile(bot, 50),
      "storm.intake_p99_ms": percentile(bot, 99),
      "storm.bare_json_p50_ms": percentile(bare, 50),
      "storm.bare_json_p99_ms": percentile(bare, 99),
      "storm.p99_ratio": percentile(bot, 99) / percentile(bare, 99),
      "storm.p99_ratio_per_round": result
        .bot!.rounds.map((r, i) =>
          (percentile(sorted(r), 99) / percentile(sorted(result.bare!.rounds[i]!), 99)).toFixed(2),
        )
        .join(" "),
      "storm.intake_alerts_per_s": Math.round(ALERTS / result.bot!.seconds),
      "storm.bare_json_alerts_per_s": Math.round(ALERTS / result.bare!.seconds),
    };
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
