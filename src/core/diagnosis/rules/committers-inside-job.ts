// Several committers inside one Flink job race each other for the table (RUNBOOK §3
// committers-inside-job): the job commits several times per checkpoint (two committer operators,
// or one per subtask), or its subtasks commit on their own without any writer id, in bursts that
// follow the job's checkpoints. One committer per job is the fix (one-committer-per-table).
// Critical while the writer is in trouble; a warning while its commits still land.

import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { describeWriter, snapshotListItem } from "../evidence-items.js";
import type { InsideJobReading } from "../inside-job.js";
import { type DiagnosisRule, finding } from "../rule.js";

function words(
  ctx: DiagnosisContext,
  reading: InsideJobReading,
): { summary: string; evidence: EvidenceItem[] } {
  if (reading.kind === "per-checkpoint") {
    const { repeated, jobId } = reading;
    const commits = repeated.reduce((n, r) => n + r.snapshots.length, 0);
    const examples = repeated.slice(0, 3).flatMap((r) => r.snapshots);
    return {
      summary: `${describeWriter(ctx)} commits several times per checkpoint (${repeated.length} of its last ${reading.checkpointsSeen} checkpoints committed ${commits} times): more than one committer inside the job`,
      evidence: [
        {
          source: "catalog",
          detail: `Checkpoints committed more than once by job ${jobId}: ${repeated
            .slice(0, 5)
            .map((r) => `${r.checkpointId} (${r.snapshots.length}×)`)
            .join(", ")}`,
          data: {
            jobId,
            checkpoints: repeated
              .slice(0, 5)
              .map((r) => ({ checkpointId: r.checkpointId, commits: r.snapshots.length })),
            repeatedCheckpoints: repeated.length,
          },
        },
        snapshotListItem("Snapshots sharing a checkpoint id", examples, commits),
      ],
    };
  }
  const { bursts, intervalMs } = reading;
  const sizes = bursts.map((b) => b.length);
  const listed = bursts.slice(-2).flat();
  const how =
    reading.toleranceMs !== undefined
      ? `each within ${formatDuration(reading.toleranceMs)} after one of its completed checkpoints (attributed by timing)`
      : `${reading.aligned} of ${reading.gaps} gaps between them a whole checkpoint interval`;
  return {
    summary: `Commits with no writer id land in ${bursts.length} bursts of ${Math.min(...sizes)}–${Math.max(...sizes)} snapshots, one burst per checkpoint of ${describeWriter(ctx)} (every ${formatDuration(intervalMs)}): its subtasks commit on their own`,
    evidence: [
      {
        source: "catalog",
        detail: `${bursts.length} bursts of snapshots without a writer id (no flink.job-id), ${how} (${formatDuration(intervalMs)})`,
        data: {
          bursts: bursts.length,
          burstSizes: sizes.slice(-10),
          alignedGaps: reading.aligned,
          intervalMs,
          ...(reading.toleranceMs !== undefined
            ? { attributedBy: "timing", toleranceMs: reading.toleranceMs }
            : {}),
        },
      },
      snapshotListItem("Newest bursts", listed, listed.length),
    ],
  };
}

export const committersInsideJob: DiagnosisRule = {
  id: "committers-inside-job",
  evaluate(ctx) {
    const reading = ctx.insideJob;
    if (!reading) return null;
    const { summary, evidence } = words(ctx, reading);
    return finding(ctx.troubled ? "critical" : "warning", summary, evidence);
  },
};
