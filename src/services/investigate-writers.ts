// Who writes the table: the Flink job named in the table's recent snapshot summaries, and the
// Kafka Connect connector whose iceberg.tables lists it (or one routing tables dynamically).

import type { FlinkJobSummary, Snapshot, TableRef } from "../core/evidence/model.js";
import { formatTableName, sanitizeForMetric } from "../core/table-name.js";
import type { ConnectorInfo } from "./ports.js";

/** How many of the newest snapshots are read for writer ids. */
const RECENT_SNAPSHOTS = 100;

/** Distinct flink.job-id values of the newest snapshots, newest writer first. */
export function recentFlinkWriters(snapshots: readonly Snapshot[]): string[] {
  const newestFirst = [...snapshots].sort((a, b) => b.timestampMs - a.timestampMs).slice(0, RECENT_SNAPSHOTS);
  const ids: string[] = [];
  for (const snapshot of newestFirst) {
    const id = snapshot.summary["flink.job-id"];
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The writer to diagnose: the newest writer that is RUNNING, else the newest one Flink still
 * knows. A job id Flink does not list (another cluster, long gone) gives nothing to read.
 */
export function pickFlinkWriter(
  writers: readonly string[],
  jobs: readonly FlinkJobSummary[],
): string | undefined {
  const known = new Map(jobs.map((job) => [job.jobId, job]));
  return writers.find((id) => known.get(id)?.state === "RUNNING") ?? writers.find((id) => known.has(id));
}

/** True when a name from a config (maybe with a catalog in front) is the table. */
export function namesTable(configured: string, table: TableRef): boolean {
  const wanted = sanitizeForMetric(formatTableName(table)).toLowerCase();
  const given = sanitizeForMetric(configured.trim()).toLowerCase();
  return given === wanted || given.endsWith(`_${wanted}`) || wanted.endsWith(`_${given}`);
}

export interface ConnectorMatch {
  name: string;
  source: "discovered" | "candidate";
}

/** The connector listing the table in iceberg.tables, else one that routes tables per record. */
export function pickConnector(
  connectors: readonly ConnectorInfo[],
  table: TableRef,
): ConnectorMatch | undefined {
  const listing = connectors.find((c) =>
    (c.config["iceberg.tables"] ?? "")
      .split(",")
      .filter((t) => t.trim() !== "")
      .some((t) => namesTable(t, table)),
  );
  if (listing) return { name: listing.name, source: "discovered" };
  const dynamic = connectors.find(
    (c) =>
      c.config["iceberg.tables.dynamic-enabled"]?.trim().toLowerCase() === "true" &&
      (c.config["iceberg.tables.route-field"] ?? "").trim() !== "",
  );
  return dynamic ? { name: dynamic.name, source: "candidate" } : undefined;
}
