// What a Prometheus scrape of /metrics costs with a fleet's incident history in Redis: 1,000
// tables with five closed incidents each, scraped one request at a time as Prometheus does, from
// a separate process, in alternating rounds against the floor (a bare prom-client server in its own
// process). The `serve` process answers the scrapes while its `worker` grinds through a backlog of
// real diagnoses, as in an incident. Also counted: whether every scrape carried the incidents
// series (a read that misses the scrape's deadline drops them), and Redis commands per scrape.

import { Redis } from "ioredis";
import { HistoryStore } from "../src/adapters/store/history-store.js";
import type { IncidentHistory } from "../src/core/history/record.js";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";
import { startSlackStandIn } from "../src/sim/slack/stand-in.js";
import { closedIncident } from "../test/support/history-records.js";
import { CHANNEL, percentile, signedSlashCommand } from "./_bot-setup.js";
import { botProcess, loadProcess, median, privateRedis, type Running, scriptProcess } from "./_processes.js";
import { scenarioFor } from "./diagnose-scale.js";

const TABLES = Number(process.env.BENCH_TABLES ?? 1_000);
const INCIDENTS_PER_TABLE = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SCRAPES_PER_ROUND = 20;
const DAY_MS = 86_400_000;

type ScrapeResult = Record<string, { latencies: number[]; rounds: number[][]; withIncidents: number }>;

function closed(table: string, i: number, nowMs: number): IncidentHistory {
  const closedAtMs = nowMs - (i + 1) * DAY_MS;
  return closedIncident(`${table}-${i}`, closedAtMs, {
    table,
    channel: CHANNEL,
    openedAtMs: closedAtMs - 40 * 60_000,
  });
}

async function commandsProcessed(url: string): Promise<number> {
  const redis = new Redis(url);
  try {
    const info = await redis.info("stats");
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
  } finally {
    redis.disconnect();
  }
}

export async function run(): Promise<Record<string, number | string>> {
  const redis = await privateRedis();
  const standIn = await startSlackStandIn();
  const lakehouse = await startLakehouse({ scenario: ScenarioSchema.parse(scenarioFor(2_000)) });
  const running: Running[] = [];
  try {
    const url = `${redis.url}/1`;
    const seed = new Redis(url);
    const nowMs = Date.now();
    const history = new HistoryStore(seed, { resolvedDays: 30, now: () => nowMs });
    for (let t = 0; t < TABLES; t++) {
      const table = `ns${t % 20}.table_${t}`;
      for (let i = 0; i < INCIDENTS_PER_TABLE; i++) await history.save(closed(table, i, nowMs));
    }
    seed.disconnect();

    const secret = "bench-signing-secret";
    const env = {
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: standIn.apiUrl,
      REDIS_URL: url,
      INCIDENT_CHANNEL: CHANNEL,
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      SOURCE_TIMEOUT_MS: "30000",
    };
    const serve = await botProcess("serve", env);
    running.push(serve);
    running.push(await botProcess("worker", env));
    const bare = await scriptProcess("_bare-metrics.mjs");
    running.push(bare);

    // The worker busy throughout, as in an incident: a diagnose command every 250 ms (identical
    // ones in flight are merged, so this keeps one 2,000-snapshot diagnosis after another running).
    let busy = true;
    let n = 0;
    const keepBusy = (async () => {
      while (busy) {
        const { body, headers } = signedSlashCommand(secret, "diagnose db.events", n++);
        await fetch(`http://127.0.0.1:${serve.port}/slack/events`, { method: "POST", headers, body }).catch(
          () => {},
        );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    const commandsBefore = await commandsProcessed(redis.url);
    const result = await loadProcess<ScrapeResult>("_scrape-load.ts", {
      targets: [
        { name: "bot", url: `http://127.0.0.1:${serve.port}/metrics` },
        { name: "bare", url: `http://127.0.0.1:${bare.port}/metrics` },
      ],
      rounds: ROUNDS,
      perRound: SCRAPES_PER_ROUND,
    });
    const commandsAfter = await commandsProcessed(redis.url);
    busy = false;
    await keepBusy;
    const scrapes = (ROUNDS + 1) * SCRAPES_PER_ROUND;
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const ours = sorted(result.bot!.latencies);
    const floor = sorted(result.bare!.latencies);
    const perRound = result.bot!.rounds.map(
      (r, i) => percentile(sorted(r), 50) / percentile(sorted(result.bare!.rounds[i]!), 50),
    );
    return {
      "scrape.history_tables": TABLES,
      "scrape.history_incidents": TABLES * INCIDENTS_PER_TABLE,
      "scrape.rounds (after a warm-up round)": ROUNDS,
      "scrape.scrapes_per_round": SCRAPES_PER_ROUND,
      "scrape.bare_p50_ms": percentile(floor, 50),
      "scrape.bare_p99_ms": percentile(floor, 99),
      "scrape.bot_p50_ms": percentile(ours, 50),
      "scrape.bot_p99_ms": percentile(ours, 99),
      "scrape.bot_p50_ratio_median_of_rounds": median(perRound),
      "scrape.bot_scrapes_with_incident_series": `${result.bot!.withIncidents} of ${scrapes}`,
      // Identical diagnoses in flight are merged: one 2,000-snapshot diagnosis runs throughout.
      "scrape.diagnose_commands_sent_meanwhile": n,
      // Every process's commands in the window (the worker's diagnoses too): an upper bound.
      "scrape.redis_commands_per_scrape (all processes, upper bound)":
        (commandsAfter - commandsBefore) / scrapes,
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
