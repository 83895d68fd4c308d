// A bot worker in its own process, for tests that kill one for real (SIGKILL, no shutdown).
// Reads its environment and options from BOT_CHILD (JSON) and prints "ready" once its workers run.
// `crashAt` names a point of an incident's resolution where the process kills itself (SIGKILL):
// around the history write, right after autopilot's approval, or right after a change's commit.

import { loadConfig } from "../../src/config.js";
import { type BotOptions, startBot } from "../../src/main.js";

const spec = JSON.parse(process.env.BOT_CHILD ?? "{}") as {
  env: Record<string, string>;
  options: Partial<BotOptions> & {
    namespace: string;
    queuePrefix: string;
    queueNames: { diagnose: string; slack: string };
  };
  crashAt?: "before-history" | "after-history" | "after-approve" | "after-apply";
};
const crashAt = spec.crashAt;
const die = async () => {
  process.kill(process.pid, "SIGKILL");
};
await startBot(loadConfig(spec.env), {
  role: "worker",
  lockDurationMs: 2000,
  stalledIntervalMs: 1000,
  backoffMs: 100,
  ...spec.options,
  ...(crashAt === "after-approve" ? { autopilot: { afterApprove: die } } : {}),
  ...(crashAt === "after-apply" ? { remediation: { ...spec.options.remediation, afterApply: die } } : {}),
  ...(crashAt === "before-history" || crashAt === "after-history"
    ? {
        remediation: {
          ...spec.options.remediation,
          onResolution: async (stage) => {
            if (stage === crashAt) process.kill(process.pid, "SIGKILL");
          },
        },
      }
    : {}),
});
process.stdout.write("ready\n");
