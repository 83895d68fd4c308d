// One measurement in a fresh process, so peak memory (maxRSS) belongs to that measurement alone.
//   baseline                   - nothing (the runtime's own footprint)
//   fetch-parse <table url>    - the floor: fetch the LoadTableResult and JSON.parse it, nothing more
//   diagnose <catalog> <flink> - gather evidence over loopback and diagnose db.events
// Plain JavaScript on the build (run.ts builds it first), as an operator runs the bot.

import { createEvidencePorts } from "../dist/adapters/evidence/from-config.js";
import { loadPlaybooks } from "../dist/adapters/playbooks/files.js";
import { loadConfig } from "../dist/config.js";
import { diagnose } from "../dist/core/diagnosis/diagnose.js";
import { investigate } from "../dist/services/investigate/investigate.js";

// Each mode runs twice and times the second run: the first warms the JIT, as a long-running bot
// process is warm. A forced GC between the two keeps the peak honest.
const [mode, a, b] = process.argv.slice(2);
const collect = globalThis.gc ?? (() => {});

async function once() {
  if (mode === "fetch-parse" && a) {
    const response = await fetch(a, { headers: { accept: "application/json" } });
    const parsed = await response.json();
    return `${parsed.metadata.snapshots.length} snapshots parsed`;
  }
  if (mode === "diagnose" && a && b) {
    const config = loadConfig({ ICEBERG_CATALOG_URL: a, FLINK_REST_URL: b, SOURCE_TIMEOUT_MS: "120000" });
    const ports = createEvidencePorts(config, { timeoutMs: 120_000 });
    const now = Date.now();
    const evidence = await investigate(ports, { table: "db.events", timeoutMs: 120_000 }, () => now);
    const report = diagnose(evidence, now, { playbooks: (await loadPlaybooks()).playbooks });
    return `${evidence.catalog?.snapshots.length ?? 0} snapshots read, verdict ${report.verdict}`;
  }
  return "";
}

await once();
collect();
const started = performance.now();
const cpuBefore = process.cpuUsage();
const detail = await once();
const elapsedMs = performance.now() - started;
// CPU time (all threads, user and system) moves far less than wall time when neighbours load the machine.
const cpu = process.cpuUsage(cpuBefore);
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ elapsedMs, cpuMs, maxRssBytes: process.resourceUsage().maxRSS * 1024, detail })}\n`,
);
