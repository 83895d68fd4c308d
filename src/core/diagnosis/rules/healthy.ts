// Nothing to fix: the writer committed within its expected interval and no failure is visible.
// With no streaming writer at all, a table is healthy when the catalog shows no trouble either.

import type { EvidenceItem } from "../../report/schema.js";
import { compact, describeWriter, timingItem, writerLastCommit } from "../evidence-items.js";
import { checkpointHealth } from "../flink-health.js";
import { idleNextCommit } from "../idle.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";
import { connectorRunning } from "../writer.js";

export const healthy: DiagnosisRule = {
  id: "healthy",
  evaluate(ctx) {
    if (ctx.failures.length > 0) return null;
    if (ctx.connect && !connectorRunning(ctx.connect.connector)) return null;
    if (ctx.job && (ctx.job.job.state !== "RUNNING" || checkpointHealth(ctx)?.failing)) return null;
    if (ctx.writer) {
      if (ctx.writerStale !== false) return null;
      const items: EvidenceItem[] = compact([writerLastCommit(ctx), timingItem(ctx)]);
      if (ctx.job) {
        items.push({
          source: "flink",
          detail: `${describeWriter(ctx)} is RUNNING with no commit exceptions`,
          data: { jobId: ctx.job.job.jobId, state: ctx.job.job.state },
        });
      }
      if (ctx.connect) {
        items.push({
          source: "connect",
          detail: `Connector ${ctx.connect.connector.name} and its tasks are RUNNING`,
          data: { connector: ctx.connect.connector.name, state: "RUNNING" },
        });
      }
      return finding(
        "info",
        ctx.idle
          ? `${describeWriter(ctx)} is quiet as expected (${ctx.idle.because}) and no commit failure is visible; ${idleNextCommit(ctx.idle)}`
          : ctx.firstCommitDueMs !== undefined
            ? `${describeWriter(ctx)} has not committed yet and its first commit is not due before ${iso(ctx.firstCommitDueMs)}; no commit failure is visible`
            : `${describeWriter(ctx)} commits on schedule${ctx.timing ? " (its commits attributed by timing)" : ""} and no commit failure is visible`,
        items,
      );
    }
    if (!ctx.table) return null;
    const newest = ctx.snapshots[ctx.snapshots.length - 1];
    return finding("info", "No streaming writer is attached to this table and no commit failure is visible", [
      {
        source: "catalog",
        detail: newest
          ? `No Flink or Kafka Connect writer found; newest snapshot ${newest.snapshotId} (${newest.operation}) at ${iso(newest.timestampMs)}`
          : "No Flink or Kafka Connect writer found and the table has no snapshots yet",
        data: newest
          ? { snapshotId: newest.snapshotId, committedAt: iso(newest.timestampMs) }
          : { snapshotCount: 0 },
      },
    ]);
  },
};
