// Shadow mode over every scenario of the library: what autopilot would have done at each
// incident, whether people did the same, and whether that step fixed it (src/cli/autopilot-shadow.ts).

import { shadowLines, shadowOverScenarios } from "../src/cli/autopilot-shadow.js";
import { listScenarios } from "../src/sim/scenarios.js";

export async function run(): Promise<Record<string, string | number>> {
  const started = Date.now();
  const rows = await shadowOverScenarios(listScenarios(), {
    redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    parallel: 2,
  });
  const acted = rows.filter((r) => r.would);
  return {
    scenarios: rows.length,
    "would act": acted.length,
    "matched people": acted.filter((r) => r.matched).length,
    "fixed it": acted.filter((r) => r.fixed).length,
    "demos not ending 0": rows.filter((r) => r.code !== 0).length,
    seconds: (Date.now() - started) / 1000,
    ...shadowLines(rows),
  };
}
