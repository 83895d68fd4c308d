// An alert storm: 10,000 alerts about 50 tables, 100 in flight at a time, spread over two bot
// processes. Counts the threads created (should be 50), duplicates (should be 0) and the intake
// latency seen by the sender.

import { alertBody, CHANNEL, fixedDiagnose, percentile, pooled, startBenchBots } from "./_bot-setup.js";

const ALERTS = 10_000;
const TABLES = 50;
const IN_FLIGHT = 100;

export async function run(): Promise<Record<string, number | string>> {
  const bench = await startBenchBots("storm", 2, { diagnose: fixedDiagnose });
  try {
    const started = performance.now();
    const latencies = await pooled(ALERTS, IN_FLIGHT, async (i) => {
      const bot = bench.bots[i % 2]!;
      const response = await fetch(`http://127.0.0.1:${bot.port}/webhooks/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bench.webhookToken}` },
        body: alertBody(`db.storm_${i % TABLES}`, `storm${i.toString().padStart(11, "0")}`),
      });
      await response.text();
      if (response.status !== 202) throw new Error(`webhook answered ${response.status}`);
    });
    const intakeSeconds = (performance.now() - started) / 1000;
    // Wait for the threads and their diagnoses to settle.
    const deadline = Date.now() + 60_000;
    const roots = () => bench.standIn.messages(CHANNEL).filter((m) => !m.thread_ts && !m.ephemeralUser);
    const replies = () => bench.standIn.messages(CHANNEL).filter((m) => m.thread_ts);
    while ((roots().length < TABLES || replies().length < TABLES) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rootTables = roots().map((m) => m.text);
    latencies.sort((a, b) => a - b);
    return {
      "storm.alerts": ALERTS,
      "storm.tables": TABLES,
      "storm.threads_created": rootTables.length,
      "storm.duplicate_threads": rootTables.length - new Set(rootTables).size,
      "storm.diagnoses_posted": replies().length,
      "storm.intake_p50_ms": percentile(latencies, 50),
      "storm.intake_p99_ms": percentile(latencies, 99),
      "storm.intake_alerts_per_s": Math.round(ALERTS / intakeSeconds),
    };
  } finally {
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
