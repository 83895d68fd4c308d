// Snapshot helpers that stay fast on 100,000-entry histories: binary search on the time-sorted
// array, index ranges instead of copies, and scans that start at the newest end.

import type { Snapshot } from "../evidence/model.js";

export type CommitterIdentity =
  | { kind: "flink"; jobId: string }
  | { kind: "spark"; appId: string; appName?: string }
  | { kind: "connect"; connector?: string; taskId?: string }
  | { kind: "other"; label: string }
  | { kind: "anonymous" };

/** The writer a diagnosis is about. */
export type WriterRef = { kind: "flink"; jobId: string } | { kind: "connect"; connector: string };

/** A half-open index range [from, to) into a snapshot array sorted by time. */
export interface IndexRange {
  from: number;
  to: number;
}

/** First index whose timestampMs is >= t (snapshots sorted ascending). */
export function lowerBound(snapshots: readonly Snapshot[], t: number): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (snapshots[mid]!.timestampMs < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose timestampMs is > t. */
export function upperBound(snapshots: readonly Snapshot[], t: number): number {
  let lo = 0;
  let hi = snapshots.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (snapshots[mid]!.timestampMs <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Indexes of snapshots with fromMs < timestampMs <= toMs. */
export function rangeAfter(snapshots: readonly Snapshot[], fromMs: number, toMs: number): IndexRange {
  return { from: upperBound(snapshots, fromMs), to: upperBound(snapshots, toMs) };
}

function connectorFromTaskId(taskId: string): string | undefined {
  const match = /^(.+)-\d+$/.exec(taskId);
  return match ? match[1] : undefined;
}

/** Who committed a snapshot, read from the summary keys each engine writes. */
export function committerOf(snapshot: Snapshot): CommitterIdentity {
  const s = snapshot.summary;
  const jobId = s["flink.job-id"];
  if (jobId) return { kind: "flink", jobId };
  const appId = s["spark.app.id"];
  if (appId) {
    const appName = s["spark.app.name"];
    return appName ? { kind: "spark", appId, appName } : { kind: "spark", appId };
  }
  const taskId = s["kafka.connect.task-id"];
  if (taskId) return { kind: "connect", connector: connectorFromTaskId(taskId), taskId };
  if (s["kafka.connect.commit-id"]) return { kind: "connect" };
  const label = s.job ?? s["app-id"] ?? s["engine-name"];
  if (label) return { kind: "other", label };
  return { kind: "anonymous" };
}

/** A stable key per committer, for counting distinct committers. */
export function committerKey(identity: CommitterIdentity): string {
  switch (identity.kind) {
    case "flink":
      return `flink:${identity.jobId}`;
    case "spark":
      return `spark:${identity.appId}`;
    case "connect":
      return `connect:${identity.connector ?? "?"}`;
    case "other":
      return `other:${identity.label}`;
    default:
      return "anonymous";
  }
}

/** Words for a committer in a summary line, e.g. "Spark app application_1700000000000_0412". */
export function describeCommitter(identity: CommitterIdentity): string {
  switch (identity.kind) {
    case "flink":
      return `Flink job ${identity.jobId}`;
    case "spark":
      return identity.appName
        ? `Spark app ${identity.appName} (${identity.appId})`
        : `Spark app ${identity.appId}`;
    case "connect":
      return identity.connector ? `connector ${identity.connector}` : "a Kafka Connect sink";
    case "other":
      return `writer "${identity.label}"`;
    default:
      return "an unidentified writer";
  }
}

export function isWriterSnapshot(snapshot: Snapshot, writer: WriterRef): boolean {
  const s = snapshot.summary;
  if (writer.kind === "flink") return s["flink.job-id"] === writer.jobId;
  const taskId = s["kafka.connect.task-id"];
  if (taskId !== undefined) return taskId.startsWith(`${writer.connector}-`);
  // An older sink without a task id: any Connect commit is taken as the writer's.
  return s["kafka.connect.commit-id"] !== undefined;
}

/** Index of the newest snapshot matching `predicate`, scanning from the newest end; -1 when none. */
export function findNewestIndex(
  snapshots: readonly Snapshot[],
  predicate: (snapshot: Snapshot) => boolean,
  before = snapshots.length,
): number {
  for (let i = before - 1; i >= 0; i--) {
    if (predicate(snapshots[i]!)) return i;
  }
  return -1;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A compact evidence record for one snapshot. */
export function snapshotData(snapshot: Snapshot): Record<string, unknown> {
  return {
    snapshotId: snapshot.snapshotId,
    committedAt: iso(snapshot.timestampMs),
    operation: snapshot.operation,
    committer: describeCommitter(committerOf(snapshot)),
  };
}
