// Diagnosis cost against table size: tables with 1,000, 10,000 and 100,000 snapshots served by the
// simulated lakehouse, a full diagnosis (HTTP, parsing, normalising, every rule) against a bare
// JSON.parse of the same LoadTableResult text. Each measurement runs in its own process so that
// peak memory is not shared. Goal: diagnosis <= 2x bare parse at 100k, and linear growth.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { generateTableMetadataJson, startLakehouse } from "../src/sim/lakehouse.js";
import type { ScenarioInput } from "../src/sim/scenario/schema.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";

const run_ = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const SIZES = [1_000, 10_000, 100_000];
const REPEATS = 3;
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";

interface Measurement {
  elapsedMs: number;
  maxRssBytes: number;
  detail: string;
}

/** A table whose Flink writer committed every minute for `count` minutes, then stalled behind compaction. */
function scenarioFor(count: number): ScenarioInput {
  return {
    name: `scale-${count}`,
    description: `db.events with ${count} snapshots`,
    table: "db.events",
    catalog: {
      tables: [
        {
          name: "db.events",
          properties: { "write.metadata.previous-versions-max": "100" },
          partitionBy: [{ source: "event_ts", transform: "day" }],
          snapshots: [
            {
              series: { from: `-${count + 60}m`, to: "-61m", every: "1m" },
              operation: "append",
              committer: { kind: "flink", jobId: JOB, checkpointStart: 1 },
            },
            {
              at: "-58m",
              operation: "replace",
              committer: { kind: "spark", appId: "application_1700000000000_0412" },
            },
            {
              at: "-52m",
              operation: "replace",
              committer: { kind: "spark", appId: "application_1700000000000_0412" },
            },
          ],
        },
      ],
    },
    flink: {
      jobs: [
        {
          id: JOB,
          name: "events-ingest",
          checkpoints: { intervalMs: 60_000 },
          exceptions: [
            {
              at: "-50m",
              exception: "org.apache.iceberg.exceptions.CommitFailedException",
              message: "Requirement failed: branch main has changed: expected id 1 != 2",
            },
          ],
          committer: { table: "iceberg.db.events" },
        },
      ],
    },
  };
}

async function child(args: string[]): Promise<Measurement> {
  const { stdout } = await run_(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(here, "_diagnose-scale-child.ts"), ...args],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Measurement;
}

async function median(args: string[]): Promise<Measurement> {
  const runs: Measurement[] = [];
  for (let i = 0; i < REPEATS; i++) runs.push(await child(args));
  runs.sort((x, y) => x.elapsedMs - y.elapsedMs);
  const middle = runs[Math.floor(runs.length / 2)] as Measurement;
  return { ...middle, maxRssBytes: Math.max(...runs.map((r) => r.maxRssBytes)) };
}

export async function run(): Promise<Record<string, number | string>> {
  const result: Record<string, number | string> = {};
  const dir = mkdtempSync(join(tmpdir(), "diagnose-scale-"));
  try {
    const baseline = await median(["baseline"]);
    result["runtime baseline maxRSS (MiB)"] = baseline.maxRssBytes / 2 ** 20;
    const perSnapshot: number[] = [];
    for (const size of SIZES) {
      const scenario = ScenarioSchema.parse(scenarioFor(size));
      const lakehouse = await startLakehouse({ scenario });
      try {
        const table = scenario.catalog.tables[0];
        if (!table) throw new Error("scenario has no table");
        const text = generateTableMetadataJson(table, lakehouse.clock.now());
        const file = join(dir, `table-${size}.json`);
        writeFileSync(file, text);
        const parse = await median(["parse", file]);
        const full = await median(["diagnose", lakehouse.urls.catalog, lakehouse.urls.flink]);
        const parseMem = Math.max(1, parse.maxRssBytes - baseline.maxRssBytes);
        const fullMem = Math.max(1, full.maxRssBytes - baseline.maxRssBytes);
        const label = `${size.toLocaleString("en-US")} snapshots`;
        result[`${label}: metadata (MiB)`] = text.length / 2 ** 20;
        result[`${label}: bare parse (ms)`] = parse.elapsedMs;
        result[`${label}: diagnosis (ms)`] = full.elapsedMs;
        result[`${label}: time ratio`] = full.elapsedMs / parse.elapsedMs;
        result[`${label}: bare parse peak (MiB over baseline)`] = parseMem / 2 ** 20;
        result[`${label}: diagnosis peak (MiB over baseline)`] = fullMem / 2 ** 20;
        result[`${label}: memory ratio`] = fullMem / parseMem;
        result[`${label}: verdict`] = full.detail;
        perSnapshot.push(full.elapsedMs / size);
      } finally {
        await lakehouse.close();
      }
    }
    // Linear growth shows as a flat (or falling) cost per snapshot from 10k to 100k.
    const [, tenK, hundredK] = perSnapshot;
    if (tenK && hundredK) result["growth: ms per snapshot 100k / 10k"] = hundredK / tenK;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
