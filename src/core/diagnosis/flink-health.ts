// Whether the Flink writer can reach a commit at all: job state and checkpoint progress.

import type { EvidenceItem } from "../report/schema.js";
import { formatDuration } from "../words/duration.js";
import type { DiagnosisContext } from "./context.js";
import { iso } from "./snapshots.js";
import { latestCheckpointFailed } from "./writer.js";

/** Reads the writer's checkpoints; null when Flink did not answer or has no checkpoint data. */
export function checkpointHealth(ctx: DiagnosisContext) {
  const checkpoints = ctx.job?.checkpoints;
  if (!ctx.job || !checkpoints) return null;
  const completed = checkpoints.latestCompleted;
  const failed = checkpoints.latestFailed;
  const completedMs = completed
    ? (completed.latestAckTimestampMs ?? completed.triggerTimestampMs)
    : undefined;
  const evidence: EvidenceItem[] = [];
  const jobId = ctx.job.job.jobId;
  let failing = false;

  if (failed && latestCheckpointFailed(checkpoints)) {
    failing = true;
    evidence.push({
      source: "flink",
      detail: `Latest checkpoint ${failed.id} failed at ${iso(failed.triggerTimestampMs)}${failed.failureMessage ? `: ${failed.failureMessage}` : ""}`,
      data: {
        jobId,
        checkpointId: failed.id,
        triggeredAt: iso(failed.triggerTimestampMs),
        failureMessage: failed.failureMessage ?? null,
      },
    });
  }
  const recent = checkpoints.history.slice(0, 3);
  if (!failing && recent.length === 3 && recent.every((c) => c.status === "FAILED")) {
    failing = true;
    evidence.push({
      source: "flink",
      detail: `The last ${recent.length} checkpoints failed (ids ${recent.map((c) => c.id).join(", ")})`,
      data: { jobId, checkpointIds: recent.map((c) => c.id) },
    });
  }
  if (
    !failing &&
    ctx.job.job.state === "RUNNING" &&
    completedMs !== undefined &&
    ctx.now - completedMs > ctx.staleAfterMs
  ) {
    failing = true;
    evidence.push({
      source: "flink",
      detail: `No checkpoint completed for ${formatDuration(ctx.now - completedMs)} (checkpoint interval ${formatDuration(ctx.intervalMs)})`,
      data: { jobId, latestCompletedAt: iso(completedMs), intervalMs: ctx.intervalMs },
    });
  }
  if (failing) {
    evidence.push({
      source: "flink",
      detail: `Checkpoint counts: ${checkpoints.counts.completed} completed, ${checkpoints.counts.failed} failed, ${checkpoints.counts.inProgress} in progress`,
      data: { jobId, ...checkpoints.counts },
    });
    for (const bp of ctx.job.backpressure) {
      if (bp.level === "high") {
        evidence.push({
          source: "flink",
          detail: `Backpressure high on ${bp.vertexName} (ratio ${bp.maxRatio})`,
          data: { jobId, vertexId: bp.vertexId, level: bp.level, maxRatio: bp.maxRatio },
        });
      }
    }
  }
  const lastCommitMs = ctx.writerNewest?.timestampMs;
  const completedSinceLastCommit =
    completedMs !== undefined && (lastCommitMs === undefined || completedMs > lastCommitMs);
  return {
    /** Checkpoints fail, time out or stopped completing. */
    failing,
    /** A checkpoint completed after the writer's last commit, so a commit should have been attempted. */
    completedSinceLastCommit,
    ...(completedMs !== undefined ? { latestCompletedMs: completedMs } : {}),
    evidence,
  };
}
