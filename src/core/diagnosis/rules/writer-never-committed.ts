// The writer has no snapshot in the table and nothing shows one was expired (no snapshot-log entry
// or parent pointing at a snapshot the table no longer holds): its first commit never landed.
// Nothing was lost, so no text may speak of expiry or of "before the retained history". Nothing
// ties any snapshot to the writer, by its keys or by timing (ctx.isWriter covers both). A writer or
// table younger than the staleness floor is not late yet: informational, with the time the first
// commit is due.

import { plural } from "../../plural.js";
import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { compact, describeWriter, elapsedMetric } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

/** The writer or the table is younger than the staleness floor: its first commit is not late yet. */
function notDueYet(ctx: DiagnosisContext, who: string) {
  const since = ctx.writerSinceMs!;
  const due = ctx.firstCommitDueMs!;
  return finding(
    "info",
    `${who} has not committed to this table yet; its first commit is expected by ${iso(due)} (${formatDuration(due - ctx.now)} from now)`,
    [
      {
        source: "catalog",
        detail: `${ctx.snapshots.length === 0 ? "The table has no snapshot yet" : `None of the table's ${plural(ctx.snapshots.length, "snapshot")} is from ${who} yet`}; the writer can have committed only since ${iso(since)} (${formatDuration(ctx.now - since)} ago), less than the staleness floor of ${formatDuration(ctx.staleAfterMs)}`,
        data: {
          snapshotCount: ctx.snapshots.length,
          writerSince: iso(since),
          firstCommitExpectedBy: iso(due),
          staleAfterSeconds: Math.round(ctx.staleAfterMs / 1000),
        },
      },
    ],
  );
}

export const writerNeverCommitted: DiagnosisRule = {
  id: "writer-never-committed",
  evaluate(ctx) {
    if (!ctx.neverCommitted || !ctx.table || !ctx.writer) return null;
    // Committers inside one job commit without the job's id: the job did commit, anonymously.
    if (ctx.insideJob?.kind === "anonymous-bursts") return null;
    const who = describeWriter(ctx);
    if (ctx.writerStale === false && ctx.firstCommitDueMs !== undefined) return notDueYet(ctx, who);
    if (ctx.writerStale !== true) return null;
    const items: EvidenceItem[] = [
      {
        source: "catalog",
        detail:
          ctx.snapshots.length === 0
            ? "The table has no snapshot at all: nothing was ever committed to it"
            : `None of the table's ${plural(ctx.snapshots.length, "snapshot")} is from ${who}, and the snapshot log names no snapshot that was expired`,
        data: {
          snapshotCount: ctx.snapshots.length,
          snapshotLogEntries: ctx.table.snapshotLog.length,
          metadataLogEntries: ctx.table.metadataLog.length,
          expiredSnapshotIds: 0,
        },
      },
    ];
    const job = ctx.job;
    if (job) {
      items.push({
        source: "flink",
        detail: `${who} is ${job.job.state}, started ${iso(job.job.startTimeMs)} (${formatDuration(ctx.now - job.job.startTimeMs)} ago)${job.checkpoints ? `; ${job.checkpoints.counts.completed} checkpoints completed, ${job.checkpoints.counts.failed} failed` : ""}`,
        data: {
          jobId: job.job.jobId,
          state: job.job.state,
          startedAt: iso(job.job.startTimeMs),
          ...(job.checkpoints
            ? { completed: job.checkpoints.counts.completed, failed: job.checkpoints.counts.failed }
            : {}),
        },
      });
    }
    if (ctx.connect) {
      const c = ctx.connect.connector;
      items.push({
        source: "connect",
        detail: `Connector ${c.name} is ${c.state}; ${c.tasks.map((t) => `task ${t.id} ${t.state}`).join(", ") || "no tasks"}`,
        data: { connector: c.name, state: c.state },
      });
    }
    // A job that only just started has one stale period to make its first commit (checked above).
    return finding(
      "critical",
      `${who} has never committed to this table: its first commit has not landed (nothing was expired or lost)`,
      compact([...items, elapsedMetric(ctx)]),
    );
  },
};
