// Who writes the table: the Flink job named in the table's recent snapshot summaries, and the
// Kafka Connect connector whose iceberg.tables lists it (or one routing tables dynamically).

import { flinkJobIdOf } from "../../core/attribution/attribute.js";
import { LIVE_JOB_STATES } from "../../core/diagnosis/context.js";
import type { FlinkJobEvidence, FlinkJobSummary, Snapshot, TableRef } from "../../core/evidence/model.js";
import { formatTableName, sanitizeForMetric } from "../../core/table-name.js";
import type { ConnectorInfo } from "../ports.js";

/** How many of the newest snapshots are read for writer ids. */
const RECENT_SNAPSHOTS = 100;

/** Distinct flink.job-id values of the newest snapshots, newest writer first. */
export function recentFlinkWriters(snapshots: readonly Snapshot[]): string[] {
  const newestFirst = [...snapshots].sort((a, b) => b.timestampMs - a.timestampMs).slice(0, RECENT_SNAPSHOTS);
  const ids: string[] = [];
  for (const snapshot of newestFirst) {
    const id = flinkJobIdOf(snapshot);
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

/** A FAILED job counts as a candidate writer when it started within this long. */
const RECENT_FAILURE_MS = 24 * 60 * 60 * 1000;
/** Upper bound on jobs read per diagnosis, so a large cluster cannot stall the answer. */
const MAX_CANDIDATE_JOBS = 24;

/**
 * Jobs besides `primary` to read as candidate writers: every job id from the snapshots that Flink
 * still knows, then every live or recently FAILED job (its vertices and committer metrics decide).
 */
export function candidateWriterJobs(
  fromSnapshots: readonly string[],
  jobs: readonly FlinkJobSummary[],
  primary: string | undefined,
): string[] {
  const known = new Map(jobs.map((job) => [job.jobId, job]));
  const newestStart = Math.max(0, ...jobs.map((j) => j.startTimeMs));
  const out: string[] = [];
  const add = (id: string) => {
    if (id !== primary && !out.includes(id) && out.length < MAX_CANDIDATE_JOBS) out.push(id);
  };
  for (const id of fromSnapshots) if (known.has(id)) add(id);
  const live = [...jobs]
    .filter(
      (job) =>
        LIVE_JOB_STATES.has(job.state) ||
        (job.state === "FAILED" && newestStart - job.startTimeMs <= RECENT_FAILURE_MS),
    )
    .sort((a, b) => b.startTimeMs - a.startTimeMs);
  for (const job of live) add(job.jobId);
  return out;
}

/**
 * True when the job's committer metrics name the table (both sink generations report them under
 * IcebergFilesCommitter), or a sink vertex names it: FlinkSink's "... Sink: IcebergSink <table>",
 * IcebergSink's "<table>: Committer" (metrics are gone once a job has FAILED; vertex names stay).
 */
export function jobWritesTable(job: FlinkJobEvidence, table: TableRef): boolean {
  if (job.committer) return true;
  const wanted = formatTableName(table).toLowerCase();
  return job.vertices.some((vertex) => {
    const name = vertex.name.toLowerCase();
    const sink = /iceberg(files)?committer|icebergsink|: committer|: writer/.exec(name);
    if (!sink) return false;
    return name.split(/[\s>:,]+/).some((word) => word === wanted || word.endsWith(`.${wanted}`));
  });
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
  /** The Connect cluster listing it, when several are read. */
  cluster?: string;
}

/** Upper bound on connectors read per diagnosis. */
const MAX_CONNECTORS = 8;

/**
 * Every connector that may write the table: those listing it in iceberg.tables first, then those
 * routing tables per record (candidates); the first is the one to diagnose.
 */
export function matchingConnectors(connectors: readonly ConnectorInfo[], table: TableRef): ConnectorMatch[] {
  const match = (source: ConnectorMatch["source"]) => (c: ConnectorInfo) => ({
    name: c.name,
    source,
    ...(c.cluster !== undefined ? { cluster: c.cluster } : {}),
  });
  const listing = connectors
    .filter((c) =>
      (c.config["iceberg.tables"] ?? "")
        .split(",")
        .filter((t) => t.trim() !== "")
        .some((t) => namesTable(t, table)),
    )
    .map(match("discovered"));
  const dynamic = connectors
    .filter(
      (c) =>
        c.config["iceberg.tables.dynamic-enabled"]?.trim().toLowerCase() === "true" &&
        (c.config["iceberg.tables.route-field"] ?? "").trim() !== "",
    )
    .map(match("candidate"));
  return [...listing, ...dynamic].slice(0, MAX_CONNECTORS);
}
