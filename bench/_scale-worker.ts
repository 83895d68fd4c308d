// One worker process for the horizontal-scale benchmark: the bot in the worker role on the given
// Redis namespace and queue prefix. Each diagnosis reads the table from the simulated catalog
// (whose latency the parent sets) and then reports a fixed result, so the measurement is the
// queue, the workers and the catalog round trip rather than the diagnosis rules.
import { loadConfig } from "../src/config.js";
import { startBot } from "../src/main.js";
import type { DiagnoseFn } from "../src/services/incident/deps.js";
import { fixtureReport } from "../test/integration/bot/harness.js";

const [namespace, queuePrefix, envJson] = process.argv.slice(2);
if (!namespace || !queuePrefix || !envJson)
  throw new Error("usage: _scale-worker <namespace> <queuePrefix> <env json>");
const config = loadConfig(JSON.parse(envJson) as Record<string, string>);

const diagnose: DiagnoseFn = async (ports, request, now) => {
  await ports.catalog?.loadTable({ namespace: ["db"], name: "events" });
  return { report: fixtureReport(request.table, now()) };
};

const bot = await startBot(config, { role: "worker", namespace, queuePrefix, diagnose });
process.stdout.write("ready\n");
process.once("SIGTERM", () => {
  void bot.stop().then(() => process.exit(0));
});
