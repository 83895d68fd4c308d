// The many-sources platform in a process of its own, so that the stand-ins' work never shares an
// event loop with the bot under test: multi-cluster-platform plus a third Flink cluster, i.e. three
// Flink clusters, two Connect clusters and two catalogs. Driven over IPC: { type: "faults", specs }
// replaces the injected faults; { type: "stop" } ends it. Ready sends { env, named }.

import type { FaultSpec } from "../src/sim/faults.js";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";
import { loadScenario } from "../src/sim/scenarios.js";

const base = loadScenario("multi-cluster-platform");
const scenario = ScenarioSchema.parse({
  ...base,
  flink: {
    jobs: [
      ...(base.flink?.jobs ?? []),
      {
        id: "5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d",
        name: "payments-ingest",
        cluster: "flink-payments",
        startedAt: "-2d",
        committer: { sink: "flink-sink-v1", table: "iceberg.ops.audit_log" },
      },
    ],
  },
});
const lakehouse = await startLakehouse({ scenario });
let active: string[] = [];

process.on("message", async (message: { type: string; specs?: FaultSpec[] }) => {
  if (message.type === "faults") {
    for (const id of active) lakehouse.faults.clear(id);
    active = (message.specs ?? []).map((spec) => lakehouse.faults.inject(spec));
    process.send?.({ type: "faults" });
  }
  if (message.type === "stop") {
    await lakehouse.close();
    process.exit(0);
  }
});
process.send?.({ type: "ready", env: lakehouse.env(), named: lakehouse.named });
