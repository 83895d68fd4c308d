// A bot worker in its own process, for tests that kill one for real (SIGKILL, no shutdown).
// Reads its environment and options from BOT_CHILD (JSON) and prints "ready" once its workers run.

import { loadConfig } from "../../src/config.js";
import { startBot } from "../../src/main.js";

const spec = JSON.parse(process.env.BOT_CHILD ?? "{}") as {
  env: Record<string, string>;
  options: { namespace: string; queuePrefix: string; queueNames: { diagnose: string; slack: string } };
};
await startBot(loadConfig(spec.env), {
  role: "worker",
  ...spec.options,
  lockDurationMs: 2000,
  stalledIntervalMs: 1000,
  backoffMs: 100,
});
process.stdout.write("ready\n");
