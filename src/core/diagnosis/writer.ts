// Which writer is being diagnosed, how often it should commit, when its silence is stale, and
// whether its checkpoints still complete.

import { committerOf, configuredGroups, type WriterRef } from "../attribution/attribute.js";
import type { ConnectEvidence, Evidence, FlinkCheckpoints, Snapshot } from "../evidence/model.js";
import { effectiveConnectNumber } from "../properties.js";

/** How far back discovery looks for a streaming writer's summary keys. */
const DISCOVERY_DEPTH = 2_000;
/** Cadence sampling: gaps between this many recent writer snapshots. */
const CADENCE_SAMPLES = 12;
/** Used only when neither config nor history says how often the writer commits (Flink's common 5 min). */
export const FALLBACK_INTERVAL_MS = 300_000;

/** A writer is stale once it missed this many expected commits... */
const STALE_INTERVALS = 3;
/** ...and never before this long: a writer that checkpoints every few seconds is not failing because one commit is late. */
const STALE_FLOOR_MS = 5 * 60_000;

/** RUNBOOK §3 staleness: three expected intervals, never under five minutes. */
export function staleAfter(intervalMs: number): number {
  return Math.max(STALE_INTERVALS * intervalMs, STALE_FLOOR_MS);
}

/** The job's latest checkpoint failed and none completed after it. */
export function latestCheckpointFailed(cp: FlinkCheckpoints | undefined): boolean {
  const failed = cp?.latestFailed;
  const completed = cp?.latestCompleted;
  return failed !== undefined && (!completed || failed.triggerTimestampMs > completed.triggerTimestampMs);
}

/** The connector and every one of its tasks are RUNNING. */
export function connectorRunning(status: ConnectEvidence["connector"]): boolean {
  return status.state === "RUNNING" && status.tasks.every((t) => t.state === "RUNNING");
}

export type IntervalSource = "checkpoint-config" | "connect-config" | "snapshot-cadence" | "fallback";

export function sourceOk(evidence: Evidence, source: keyof Evidence["sources"]): boolean {
  return evidence.sources[source]?.status === "ok";
}

/** The configured or discovered writer: Flink job first, then the Connect connector, then snapshot summaries. */
export function identifyWriter(evidence: Evidence): WriterRef | null {
  const job = sourceOk(evidence, "flink") ? evidence.flink?.writer : undefined;
  if (job) return { kind: "flink", jobId: job.job.jobId };
  const connect = sourceOk(evidence, "connect") ? evidence.connect : undefined;
  if (connect) {
    const groups = configuredGroups(connect.config);
    return { kind: "connect", connector: connect.connector.name, ...(groups.length ? { groups } : {}) };
  }
  const snapshots = sourceOk(evidence, "catalog") ? (evidence.catalog?.snapshots ?? []) : [];
  const floor = Math.max(0, snapshots.length - DISCOVERY_DEPTH);
  for (let i = snapshots.length - 1; i >= floor; i--) {
    const id = committerOf(snapshots[i]!);
    if (id.kind === "flink") return { kind: "flink", jobId: id.jobId };
    // Either generation of the Connect sink names its connector by a task id or a default group.
    if (id.kind === "connect" && id.connector) return { kind: "connect", connector: id.connector };
  }
  return null;
}

function cadenceOf(
  snapshots: readonly Snapshot[],
  newestIndex: number,
  isWriter: (s: Snapshot) => boolean,
): number | null {
  const gaps: number[] = [];
  let later = snapshots[newestIndex]!;
  for (let i = newestIndex - 1; i >= 0 && gaps.length < CADENCE_SAMPLES; i--) {
    const s = snapshots[i]!;
    if (!isWriter(s)) continue;
    gaps.push(later.timestampMs - s.timestampMs);
    later = s;
  }
  if (gaps.length < 3) return null;
  gaps.sort((a, b) => a - b);
  return gaps[gaps.length >> 1]!;
}

/** The interval at which the writer should commit, and where that number came from. */
export function expectedInterval(
  evidence: Evidence,
  writer: WriterRef | null,
  snapshots: readonly Snapshot[],
  newestWriterIndex: number,
  isWriter: (s: Snapshot) => boolean,
): { ms: number; source: IntervalSource } {
  if (writer?.kind === "flink" && sourceOk(evidence, "flink")) {
    const interval = evidence.flink?.writer?.checkpointConfig?.intervalMs;
    if (interval !== undefined && interval > 0) return { ms: interval, source: "checkpoint-config" };
  }
  if (writer?.kind === "connect" && sourceOk(evidence, "connect") && evidence.connect) {
    return {
      ms: effectiveConnectNumber(evidence.connect.config, "iceberg.control.commit.interval-ms"),
      source: "connect-config",
    };
  }
  if (newestWriterIndex >= 0) {
    const cadence = cadenceOf(snapshots, newestWriterIndex, isWriter);
    if (cadence !== null && cadence > 0) return { ms: cadence, source: "snapshot-cadence" };
  }
  return { ms: FALLBACK_INTERVAL_MS, source: "fallback" };
}
