// Checkpoints complete (or the connector says RUNNING) but the writer's commits stopped landing:
// the commit step itself fails. Sink 1.11.0 and earlier log the failure and stay RUNNING, so
// stale commits are the only sign there.

import { plural } from "../../plural.js";
import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { compact, describeWriter, elapsedMetric, writerLastCommit } from "../evidence-items.js";
import { checkpointHealth } from "../flink-health.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";
import { connectorRunning } from "../writer.js";
import { newestCommitError } from "./commit-error.js";

/** True for sink versions that log a failed commit and keep running (1.11.x and earlier). */
function sinkKeepsRunningOnFailure(version: string | undefined): boolean {
  if (!version) return false;
  const match = /^(\d+)\.(\d+)/.exec(version);
  if (!match) return false;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  return major < 1 || (major === 1 && minor <= 11);
}

function noWriterSnapshot(ctx: DiagnosisContext): EvidenceItem | null {
  if (ctx.writerNewest || !ctx.table) return null;
  const expired = ctx.expiry.expiredIds;
  return {
    source: "catalog",
    detail: `No snapshot from ${describeWriter(ctx)} among the table's ${ctx.snapshots.length} snapshots; ${expired.length} older snapshot ids named by the snapshot log or a parent were expired (${expired.slice(0, 3).join(", ")})`,
    data: { snapshotCount: ctx.snapshots.length, expiredSnapshotIds: expired.slice(0, 10) },
  };
}

function flinkCase(ctx: DiagnosisContext) {
  const job = ctx.job!;
  const health = checkpointHealth(ctx);
  if (!health || health.failing || !health.completedSinceLastCommit) return null;
  const running = job.job.state === "RUNNING" || ctx.failures.some((f) => f.source === "flink");
  if (!running) return null;
  const completed = health.latestCompletedMs!;
  return finding(
    "critical",
    `Checkpoints complete but ${describeWriter(ctx)} has not committed for ${formatDuration(ctx.writerAgeMs ?? ctx.elapsedSinceCommitMs ?? 0)}: the commit step itself fails`,
    compact([
      {
        source: "flink",
        detail: `Latest checkpoint ${job.checkpoints?.latestCompleted?.id ?? "?"} completed at ${iso(completed)}, after the last commit`,
        data: {
          jobId: job.job.jobId,
          checkpointId: job.checkpoints?.latestCompleted?.id ?? null,
          completedAt: iso(completed),
        },
      },
      elapsedMetric(ctx),
      writerLastCommit(ctx),
      noWriterSnapshot(ctx),
    ]),
  );
}

function connectCase(ctx: DiagnosisContext) {
  const connect = ctx.connect!;
  const status = connect.connector;
  if (!connectorRunning(status)) return null;
  const quietFor = ctx.writerAgeMs;
  const keepsRunning = sinkKeepsRunningOnFailure(connect.sinkVersion);
  return finding(
    "critical",
    `Connector ${status.name} reports RUNNING but its last commit landed ${quietFor !== undefined ? `${formatDuration(quietFor)} ago` : "before the retained history (older snapshots were expired)"}${keepsRunning ? `; sink ${connect.sinkVersion} logs failed commits and keeps running` : ""}`,
    compact([
      {
        source: "connect",
        detail: `Connector ${status.name} and its ${plural(status.tasks.length, "task")} ${status.tasks.length === 1 ? "is" : "are"} RUNNING${connect.sinkVersion ? ` (Iceberg sink ${connect.sinkVersion})` : ""}`,
        data: {
          connector: status.name,
          state: status.state,
          tasks: status.tasks.length,
          sinkVersion: connect.sinkVersion ?? null,
        },
      },
      writerLastCommit(ctx),
      noWriterSnapshot(ctx),
    ]),
  );
}

export const commitFailing: DiagnosisRule = {
  id: "commit-failing",
  evaluate(ctx) {
    if (ctx.writerStale !== true || !ctx.writer) return null;
    // No snapshot and nothing expired: the first commit never landed (writer-never-committed).
    if (ctx.neverCommitted) return null;
    // The quoted exception already names why commits stopped (commit-error).
    if (newestCommitError(ctx)) return null;
    if (ctx.writer.kind === "flink") return ctx.job ? flinkCase(ctx) : null;
    return ctx.connect ? connectCase(ctx) : null;
  },
};
