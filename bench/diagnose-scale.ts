// Diagnosis cost against table size: tables with 1,000 to 300,000 snapshots served by the simulated
// lakehouse, a full diagnosis (HTTP, parsing, normalising, every rule) against its floor, a bare
// process that fetches the same LoadTableResult and JSON.parses it. Each measurement runs in its
// own process so that peak memory is not shared; floor and diagnosis alternate, round after round,
// and the medians are compared. Goal at 100k: <= 1.2x the time and <= 0.8x the peak memory of the
// floor, and linear growth.

import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { generateTableMetadataJson, startLakehouse } from "../src/sim/lakehouse.js";
import type { ScenarioInput } from "../src/sim/scenario/schema.js";
import { ScenarioSchema } from "../src/sim/scenario/schema.js";

const run_ = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000,300000").split(",").map(Number);
// Five rounds: one round's time ratio moves by a quarter either way with the machine's load.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";

interface Measurement {
  elapsedMs: number;
  cpuMs: number;
  maxRssBytes: number;
  detail: string;
}

/** A table whose Flink writer committed every minute for `count` minutes, then stalled behind compaction. */
export function scenarioFor(count: number): ScenarioInput {
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
    ["--expose-gc", join(here, "_diagnose-scale-child.mjs"), ...args],
    {
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Measurement;
}

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Floor and diagnosis in alternating rounds, so a noisy neighbour hits both alike. */
async function alternate(
  rounds: number,
  floorArgs: string[],
  ourArgs: string[],
): Promise<{ floor: Measurement[]; ours: Measurement[] }> {
  const floor: Measurement[] = [];
  const ours: Measurement[] = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      floor.push(await child(floorArgs));
      ours.push(await child(ourArgs));
    } else {
      ours.push(await child(ourArgs));
      floor.push(await child(floorArgs));
    }
  }
  return { floor, ours };
}

export async function run(): Promise<Record<string, number | string>> {
  const result: Record<string, number | string> = {};
  const baseline = (await child(["baseline"])).maxRssBytes;
  result["runtime baseline maxRSS (MiB)"] = baseline / 2 ** 20;
  const perSnapshot: number[] = [];
  const floorPerSnapshot: number[] = [];
  for (const size of SIZES) {
    const scenario = ScenarioSchema.parse(scenarioFor(size));
    const lakehouse = await startLakehouse({ scenario });
    try {
      const table = scenario.catalog.tables[0];
      if (!table) throw new Error("scenario has no table");
      const bytes = Buffer.byteLength(generateTableMetadataJson(table, lakehouse.clock.now()));
      const tableUrl = await loadTableUrl(lakehouse.urls.catalog);
      const { floor, ours } = await alternate(
        ROUNDS,
        ["fetch-parse", tableUrl],
        ["diagnose", lakehouse.urls.catalog, lakehouse.urls.flink],
      );
      const floorMs = median(floor.map((m) => m.elapsedMs));
      const oursMs = median(ours.map((m) => m.elapsedMs));
      const floorMem = Math.max(1, median(floor.map((m) => m.maxRssBytes)) - baseline);
      const oursMem = Math.max(1, median(ours.map((m) => m.maxRssBytes)) - baseline);
      const label = `${size.toLocaleString("en-US")} snapshots`;
      result[`${label}: LoadTableResult (MiB)`] = bytes / 2 ** 20;
      result[`${label}: fetch+parse floor (ms)`] = floorMs;
      result[`${label}: diagnosis (ms)`] = oursMs;
      result[`${label}: time ratio`] = oursMs / floorMs;
      result[`${label}: time ratio per round`] = ours
        .map((m, i) => (m.elapsedMs / floor[i]!.elapsedMs).toFixed(2))
        .join(" ");
      // CPU time as a second view: on a loaded machine it moves far less than wall time.
      result[`${label}: cpu ratio`] = median(ours.map((m) => m.cpuMs)) / median(floor.map((m) => m.cpuMs));
      result[`${label}: floor peak (MiB over baseline)`] = floorMem / 2 ** 20;
      result[`${label}: diagnosis peak (MiB over baseline)`] = oursMem / 2 ** 20;
      result[`${label}: memory ratio`] = oursMem / floorMem;
      result[`${label}: verdict`] = ours[0]?.detail ?? "";
      perSnapshot.push(oursMs / size);
      floorPerSnapshot.push(floorMs / size);
    } finally {
      await lakehouse.close();
    }
  }
  // Linear growth shows as a flat (or falling) cost per snapshot as tables grow.
  for (let i = 1; i < perSnapshot.length; i++) {
    const step = `${SIZES[i]! / 1000}k / ${SIZES[i - 1]! / 1000}k`;
    result[`growth: ms per snapshot ${step}`] = perSnapshot[i]! / perSnapshot[i - 1]!;
    result[`growth: floor ms per snapshot ${step}`] = floorPerSnapshot[i]! / floorPerSnapshot[i - 1]!;
  }
  return result;
}

/** The LoadTableResult URL of db.events, with the catalog's prefix, as a bare client would build it. */
async function loadTableUrl(catalog: string): Promise<string> {
  const config = (await (await fetch(`${catalog}/v1/config`)).json()) as {
    defaults?: { prefix?: string };
    overrides?: { prefix?: string };
  };
  const prefix = config.overrides?.prefix ?? config.defaults?.prefix;
  return `${catalog}/v1/${prefix ? `${prefix}/` : ""}namespaces/db/tables/events`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await run());
}
