// Everything the rules share, computed once per diagnosis: the writer, its cadence and staleness,
// the commit failures that still matter, and the window around the failure.
//
// The window is anchored on evidence, never on "now minus a constant":
//   start   = the writer's last successful commit (its newest snapshot);
//   failure = the newest commit-failure exception after that, else start + expected interval
//             (when the next commit should have landed);
//   end     = the failure time when an exception dates it (the winner committed before it),
//             else now (the writer is still not committing, anything after its last commit counts).
// Without any writer snapshot, start = failure - 2 intervals.
// The lookback adds LOOKBACK_INTERVALS before the start, to see interleaving and bursts.

import { committerOf, isWriterSnapshot, type WriterRef } from "../attribution/attribute.js";
import { CONNECT_CONFIG } from "../attribution/keys.js";
import {
  TIMING_LOOKBACK_INTERVALS,
  type TimingReading,
  tieToCommitInterval,
  tieToFlinkCheckpoints,
} from "../attribution/timing.js";
import type {
  ConnectEvidence,
  Evidence,
  FlinkJobEvidence,
  MetricPoint,
  Snapshot,
  TableEvidence,
} from "../evidence/model.js";
import { effectiveConnectNumber } from "../properties.js";
import { formatTableName } from "../table-name.js";
import { type CommitFailure, connectFailures, flinkFailuresSince, newestFirst } from "./failures.js";
import { expiryEvidence, readIdle } from "./idle.js";
import { readCommittersInsideJob } from "./inside-job.js";
import { findNewestIndex, rangeAfter } from "./snapshots.js";
import { expectedInterval, identifyWriter, sourceOk, staleAfter } from "./writer.js";

const LOOKBACK_INTERVALS = 6;

/** When the table was created, as far as its metadata tells (oldest log entry or snapshot). */
function tableCreatedMs(table: TableEvidence): number {
  return Math.min(
    table.lastUpdatedMs,
    table.metadataLog[0]?.timestampMs ?? Number.POSITIVE_INFINITY,
    table.snapshotLog[0]?.timestampMs ?? Number.POSITIVE_INFINITY,
    table.snapshots[0]?.timestampMs ?? Number.POSITIVE_INFINITY,
  );
}

/**
 * Id-less snapshots tied to the writer by timing, only while the writer's own keys tie nothing in
 * the look-back: a writer that names itself leaves the id-less commits to someone else.
 */
function timingFor(
  snapshots: readonly Snapshot[],
  now: number,
  keyed: (s: Snapshot) => boolean,
  writer: WriterRef | null,
  job: FlinkJobEvidence | undefined,
  connect: ConnectEvidence | undefined,
): TimingReading | null {
  const flinkInterval = writer?.kind === "flink" ? job?.checkpointConfig?.intervalMs : undefined;
  const interval =
    writer?.kind === "connect" && connect
      ? effectiveConnectNumber(connect.config, CONNECT_CONFIG.commitInterval)
      : flinkInterval;
  if (!interval) return null;
  if (snapshots.some((s) => s.timestampMs > now - TIMING_LOOKBACK_INTERVALS * interval && keyed(s)))
    return null;
  return flinkInterval
    ? tieToFlinkCheckpoints(snapshots, job!, now)
    : tieToCommitInterval(snapshots, interval, now);
}

function lastPoint(points: MetricPoint[] | undefined): number | undefined {
  return points && points.length > 0 ? points[points.length - 1]!.value : undefined;
}

/** A Prometheus series whose name mentions `metric`, if any. */
export function prometheusSeries(evidence: Evidence, metric: string): MetricPoint[] | undefined {
  if (!sourceOk(evidence, "prometheus") || !evidence.prometheus) return undefined;
  for (const [name, points] of Object.entries(evidence.prometheus.series)) {
    if (name.includes(metric) && points.length > 0) return points;
  }
  return undefined;
}

/** Job states in which a Flink job is (or is about to be) committing. */
export const LIVE_JOB_STATES: ReadonlySet<string> = new Set([
  "RUNNING",
  "RESTARTING",
  "FAILING",
  "INITIALIZING",
  "CREATED",
  "RECONCILING",
]);

/**
 * The writer's job id plus the ids of the same pipeline's earlier runs: jobs with the writer's
 * name that are no longer live (a resubmission gets a new id). Two live jobs that share a name are
 * two writers and stay apart.
 */
function writerLineage(jobId: string, evidence: Evidence, flinkOk: boolean): Set<string> {
  const ids = new Set([jobId]);
  if (!flinkOk || !evidence.flink) return ids;
  const jobs = [...evidence.flink.jobs, ...(evidence.flink.writers ?? []).map((w) => w.job)];
  const name = jobs.find((j) => j.jobId === jobId)?.name;
  if (name === undefined) return ids;
  for (const j of jobs) if (j.name === name && !LIVE_JOB_STATES.has(j.state)) ids.add(j.jobId);
  return ids;
}

export function buildContext(
  evidence: Evidence,
  now: number,
  options: { tableName?: string; catalogName?: string } = {},
) {
  const table = sourceOk(evidence, "catalog") ? evidence.catalog : undefined;
  const snapshots: readonly Snapshot[] = table?.snapshots ?? [];
  const job = sourceOk(evidence, "flink") ? evidence.flink?.writer : undefined;
  const connect = sourceOk(evidence, "connect") ? evidence.connect : undefined;
  const flinkOk = sourceOk(evidence, "flink");
  const flinkWriters = flinkOk ? (evidence.flink?.writers ?? (job ? [job] : [])) : [];
  const jobNames = new Map<string, string>();
  const jobSources = new Map<string, string>();
  if (flinkOk) {
    const listed = [...(evidence.flink?.jobs ?? []), ...flinkWriters.map((w) => w.job)];
    for (const j of listed) jobNames.set(j.jobId, j.name);
    // The writers read win: a job id listed by two clusters is named by the one read.
    for (const j of listed.reverse())
      if (j.source && !jobSources.has(j.jobId)) jobSources.set(j.jobId, j.source);
  }
  const writer = identifyWriter(evidence);
  const lineage = writer?.kind === "flink" ? writerLineage(writer.jobId, evidence, flinkOk) : undefined;
  // The writer's identity across a job-id change: a job restored from a savepoint gets a new id but
  // keeps its committer's operator id (RUNBOOK §4).
  const operators = lineage ? operatorIds(snapshots, lineage) : new Set<string>();
  const keyed = lineage
    ? (s: Snapshot) => {
        const id = committerOf(s);
        return id.kind === "flink" && (lineage.has(id.jobId) || operators.has(id.operatorId ?? ""));
      }
    : writer
      ? (s: Snapshot) => isWriterSnapshot(s, writer)
      : () => false;
  const timing = timingFor(snapshots, now, keyed, writer, job, connect);
  const tied = new Set(timing?.ties.map((t) => t.snapshot));
  const isWriter = tied.size > 0 ? (s: Snapshot) => keyed(s) || tied.has(s) : keyed;
  const newestIndex = writer ? findNewestIndex(snapshots, isWriter) : -1;
  const writerNewest = newestIndex >= 0 ? snapshots[newestIndex] : undefined;
  const interval = expectedInterval(evidence, writer, snapshots, newestIndex, isWriter);
  const staleAfterMs = staleAfter(interval.ms);

  const elapsedSeconds =
    job?.committer?.elapsedSecondsSinceLastSuccessfulCommit ??
    lastPoint(prometheusSeries(evidence, "elapsedSecondsSinceLastSuccessfulCommit"));
  const elapsedSinceCommitMs = elapsedSeconds === undefined ? undefined : elapsedSeconds * 1000;
  const writerAgeMs = writerNewest ? now - writerNewest.timestampMs : undefined;

  let writerStale: boolean | null = null;
  if (writerAgeMs !== undefined || elapsedSinceCommitMs !== undefined) {
    writerStale = Math.max(writerAgeMs ?? 0, elapsedSinceCommitMs ?? 0) > staleAfterMs;
  }
  // The writer cannot have committed before it started, nor before the table existed.
  const writerSinceMs = table
    ? Math.max(tableCreatedMs(table), job?.job.startTimeMs ?? Number.NEGATIVE_INFINITY)
    : job?.job.startTimeMs;
  let firstCommitDueMs: number | undefined;
  if (!writerNewest && writer && table) {
    // The catalog holds no snapshot from the writer: a fresh writer, or a writer on a fresh table,
    // gets one stale period to make its first commit. A young table wins over Flink's gauge, which
    // counts from the operator's start, not from the table's creation.
    const young = writerSinceMs !== undefined && now - writerSinceMs <= staleAfterMs;
    if (young) {
      writerStale = false;
      firstCommitDueMs = writerSinceMs + staleAfterMs;
    } else if (writerStale === null) writerStale = true;
  }

  const failures = newestFirst([
    ...(job ? flinkFailuresSince(job, writerNewest?.timestampMs) : []),
    ...(connect ? connectFailures(connect) : []),
  ]);
  const window = buildWindow(snapshots, now, interval.ms, writerNewest?.timestampMs, failures);
  const expiry = table ? expiryEvidence(table) : { expiredIds: [] };
  const idle =
    writerStale === true && failures.length === 0 && table && writerNewest
      ? readIdle({
          evidence,
          now,
          snapshots,
          isWriter,
          writerNewest,
          intervalMs: interval.ms,
          ...(job ? { job } : {}),
          ...(connect ? { connect } : {}),
        })
      : null;
  if (idle) writerStale = false;

  return {
    evidence,
    now,
    tableName: options.tableName ?? formatTableName(evidence.table),
    ...(options.catalogName ? { catalogName: options.catalogName } : {}),
    /** Present only when the catalog answered. */
    ...(table ? { table } : {}),
    snapshots,
    /** Present only when Flink answered and a writer job is known. */
    ...(job ? { job } : {}),
    /** Every Flink job read as a candidate writer (the writer included); empty when Flink did not answer. */
    flinkWriters,
    /** Flink job names by id, from the job listing and the jobs read. */
    jobNames,
    /** The Flink source (cluster) each job runs on, when the bot reads named sources. */
    jobSources,
    /** Present only when Connect answered. */
    ...(connect ? { connect } : {}),
    writer,
    isWriter,
    intervalMs: interval.ms,
    intervalSource: interval.source,
    staleAfterMs,
    writerNewestIndex: newestIndex,
    ...(writerNewest ? { writerNewest } : {}),
    /** now - the writer's newest snapshot time. */
    ...(writerAgeMs !== undefined ? { writerAgeMs } : {}),
    /** elapsedSecondsSinceLastSuccessfulCommit in ms, from Flink or Prometheus. */
    ...(elapsedSinceCommitMs !== undefined ? { elapsedSinceCommitMs } : {}),
    /** True/false when known; null when no source can tell. */
    writerStale,
    /** Something is wrong: the writer is stale or a commit failure is visible. Root-cause rules need it. */
    troubled: writerStale === true || failures.length > 0,
    /** Commit failures newer than the writer's last success (state-unknown: around it). */
    failures,
    window,
    /** The writer is quiet and its silence fits its own history (RUNBOOK §3 writer-idle); it is then not stale. */
    idle,
    /** The catalog answered, the writer has no snapshot and nothing shows an expired one: its first commit never landed. */
    neverCommitted: Boolean(writer && table && !writerNewest && expiry.expiredIds.length === 0),
    /** Evidence that snapshots were expired (ids the snapshot log or a parent names that are gone). */
    expiry,
    /** Several committers inside the writer's job (RUNBOOK §3 committers-inside-job), when seen. */
    insideJob:
      table && writer?.kind === "flink"
        ? readCommittersInsideJob({ snapshots, now, jobId: writer.jobId, ...(job ? { job } : {}), timing })
        : null,
    /** Snapshots without writer keys tied to the writer by timing; null when none are. */
    timing,
    /** Since when the writer can have committed to this table: the later of its start and the table's creation. */
    ...(writerSinceMs !== undefined ? { writerSinceMs } : {}),
    /** Set while the writer has no snapshot and its first commit is not due yet (RUNBOOK §3 writer-never-committed). */
    ...(firstCommitDueMs !== undefined ? { firstCommitDueMs } : {}),
  };
}

/** Everything the rules share about one diagnosis, as buildContext computes it. */
export type DiagnosisContext = ReturnType<typeof buildContext>;

/** The committer operator ids the writer's own snapshots carry. */
function operatorIds(snapshots: readonly Snapshot[], lineage: ReadonlySet<string>): Set<string> {
  const out = new Set<string>();
  for (let i = snapshots.length - 1, seen = 0; i >= 0 && seen < 200; i--) {
    const id = committerOf(snapshots[i]!);
    if (id.kind !== "flink" || !lineage.has(id.jobId)) continue;
    seen++;
    if (id.operatorId) out.add(id.operatorId);
  }
  return out;
}

function buildWindow(
  snapshots: readonly Snapshot[],
  now: number,
  intervalMs: number,
  lastCommitMs: number | undefined,
  failures: CommitFailure[],
) {
  const exceptionMs = failures.find((f) => f.atMs !== undefined)?.atMs;
  let failureMs: number;
  let failureSource: "exception" | "expected-commit";
  if (exceptionMs !== undefined && (lastCommitMs === undefined || exceptionMs > lastCommitMs)) {
    failureMs = exceptionMs;
    failureSource = "exception";
  } else if (lastCommitMs !== undefined) {
    failureMs = lastCommitMs + intervalMs;
    failureSource = "expected-commit";
  } else {
    return null;
  }
  const startMs = lastCommitMs ?? failureMs - 2 * intervalMs;
  const endMs = failureSource === "exception" ? failureMs : Math.max(now, failureMs);
  const lookbackStartMs = startMs - LOOKBACK_INTERVALS * intervalMs;
  return {
    startMs,
    failureMs,
    failureSource,
    endMs,
    /** Snapshots with startMs < t <= endMs. */
    range: rangeAfter(snapshots, startMs, endMs),
    lookbackStartMs,
    /** Snapshots with lookbackStartMs < t <= endMs. */
    lookback: rangeAfter(snapshots, lookbackStartMs, endMs),
  };
}
