import { createEvidencePorts } from "../src/adapters/evidence/from-config.js";
import { loadConfig } from "../src/config.js";
import { diagnose } from "../src/core/diagnosis/diagnose.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";
import { startLakehouse } from "../src/sim/lakehouse.js";
import { investigate } from "../src/services/investigate.js";
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const count = Number(process.argv[2] ?? 30000);
const scenario = ScenarioSchema.parse({ name: "p", description: "p", table: "db.events", catalog: { tables: [{ name: "db.events", snapshots: [{ series: { from: `-${count + 60}m`, to: "-61m", every: "1m" }, operation: "append", committer: { kind: "flink", jobId: JOB } }] }] } });
const lh = await startLakehouse({ scenario });
const config = loadConfig({ ICEBERG_CATALOG_URL: lh.urls.catalog });
const ports = createEvidencePorts(config, { timeoutMs: 120000 });
for (let i = 0; i < 3; i++) {
  const t0 = performance.now();
  const ev = await investigate(ports, { table: "db.events", timeoutMs: 120000 }, () => Date.now());
  const t1 = performance.now();
  diagnose(ev, Date.now());
  console.log(i, (t1 - t0).toFixed(0), (performance.now() - t1).toFixed(1));
}
await lh.close();
