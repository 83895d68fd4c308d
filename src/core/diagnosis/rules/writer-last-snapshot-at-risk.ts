// A Flink writer keeps its last committed checkpoint id in its newest snapshot's summary; expiry
// that removes that snapshot makes a restart re-commit or lose track of data.
// Fires when the writer's newest snapshot is older than half of history.expire.max-snapshot-age-ms
// (critical once older than the whole age) and not protected by min-snapshots-to-keep, or when
// none of the running job's snapshots are left although the job started before the oldest one.

import { plural } from "../../plural.js";
import { effectiveNumber, rawProperty } from "../../properties.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { formatDuration, iso } from "../snapshots.js";

const WARN_SHARE = 0.5;

export const writerLastSnapshotAtRisk: DiagnosisRule = {
  id: "writer-last-snapshot-at-risk",
  evaluate(ctx) {
    const table = ctx.table;
    if (!table || ctx.writer?.kind !== "flink") return null;
    const main = table.refs.main;
    const maxAge =
      main?.maxSnapshotAgeMs ?? effectiveNumber(table.properties, "history.expire.max-snapshot-age-ms");
    const minKeep =
      main?.minSnapshotsToKeep ?? effectiveNumber(table.properties, "history.expire.min-snapshots-to-keep");
    const settings = {
      source: "catalog" as const,
      detail: `history.expire.max-snapshot-age-ms = ${rawProperty(table.properties, "history.expire.max-snapshot-age-ms") ?? `${maxAge} (default)`}, history.expire.min-snapshots-to-keep = ${rawProperty(table.properties, "history.expire.min-snapshots-to-keep") ?? `${minKeep} (default)`}`,
      data: {
        "history.expire.max-snapshot-age-ms": rawProperty(
          table.properties,
          "history.expire.max-snapshot-age-ms",
        ),
        "history.expire.min-snapshots-to-keep": rawProperty(
          table.properties,
          "history.expire.min-snapshots-to-keep",
        ),
        effectiveMaxSnapshotAgeMs: maxAge,
        effectiveMinSnapshotsToKeep: minKeep,
      },
    };
    const newest = ctx.writerNewest;
    if (newest && ctx.writerAgeMs !== undefined) {
      const newer = ctx.snapshots.length - 1 - ctx.writerNewestIndex;
      if (ctx.writerAgeMs < maxAge * WARN_SHARE || newer < minKeep) return null;
      const expired = ctx.writerAgeMs >= maxAge;
      return finding(
        "writer-last-snapshot-at-risk",
        expired ? "critical" : "warning",
        `The Flink writer's last snapshot is ${formatDuration(ctx.writerAgeMs)} old; expiry ${expired ? "will" : "can soon"} remove it (max age ${formatDuration(maxAge)}), losing the job's last committed checkpoint id`,
        [
          {
            source: "catalog",
            detail: `Writer snapshot ${newest.snapshotId} at ${iso(newest.timestampMs)} (checkpoint ${newest.summary["flink.max-committed-checkpoint-id"] ?? "?"}), ${plural(newer, "newer snapshot")} by others`,
            data: {
              snapshotId: newest.snapshotId,
              committedAt: iso(newest.timestampMs),
              ageMs: ctx.writerAgeMs,
              maxCommittedCheckpointId: newest.summary["flink.max-committed-checkpoint-id"] ?? null,
              newerSnapshots: newer,
            },
          },
          settings,
        ],
      );
    }
    const job = ctx.job;
    const oldest = ctx.snapshots[0];
    if (!job || !oldest || newest || job.job.startTimeMs >= oldest.timestampMs) return null;
    return finding(
      "writer-last-snapshot-at-risk",
      "critical",
      `None of Flink job ${job.job.jobId}'s snapshots remain although it started before the oldest retained snapshot: expiry removed its last committed checkpoint id`,
      [
        {
          source: "flink",
          detail: `Job ${job.job.jobId} started at ${iso(job.job.startTimeMs)}`,
          data: { jobId: job.job.jobId, startedAt: iso(job.job.startTimeMs) },
        },
        {
          source: "catalog",
          detail: `Oldest retained snapshot ${oldest.snapshotId} at ${iso(oldest.timestampMs)}; none carries flink.job-id ${job.job.jobId}`,
          data: {
            oldestSnapshotId: oldest.snapshotId,
            oldestAt: iso(oldest.timestampMs),
            snapshotCount: ctx.snapshots.length,
          },
        },
        settings,
      ],
    );
  },
};
