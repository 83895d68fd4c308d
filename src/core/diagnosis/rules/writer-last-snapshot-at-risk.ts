// A Flink writer keeps its last committed checkpoint id in its newest snapshot's summary; when
// expiry removes that snapshot (or a manifest it needs), a restart re-commits or loses data.
//
// Critical, direct evidence that the writer cannot restore (RUNBOOK §4 step 3, before checkpoints):
//   - a NotFoundException for a manifest or metadata file in the writer's exceptions since its
//     last commit (the committer initialising or restoring);
//   - the writer's newest snapshot has a parent that is no longer in the table (expired);
//   - the job restored from a checkpoint R while the table's newest commit of the writer holds a
//     max-committed-checkpoint-id below R - 1 (the state counts commits the table no longer has);
//   - none of the running job's snapshots remain although it started before the oldest one.
// Warning, a risk read from the settings alone (step 7): the writer's newest snapshot is older than
// half of history.expire.max-snapshot-age-ms and not protected by min-snapshots-to-keep.

import { checkpointIdOf } from "../../attribution/attribute.js";
import { simpleClassName } from "../../evidence/exceptions.js";
import type { Snapshot } from "../../evidence/model.js";
import { plural } from "../../plural.js";
import { effectiveNumber, rawProperty } from "../../properties.js";
import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { describeWriter } from "../evidence-items.js";
import { MISSING_ON_RESTORE } from "../failures.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

const WARN_SHARE = 0.5;

function settingsItem(ctx: DiagnosisContext): { item: EvidenceItem; maxAge: number; minKeep: number } {
  const table = ctx.table!;
  const main = table.refs.main;
  const maxAge =
    main?.maxSnapshotAgeMs ?? effectiveNumber(table.properties, "history.expire.max-snapshot-age-ms");
  const minKeep =
    main?.minSnapshotsToKeep ?? effectiveNumber(table.properties, "history.expire.min-snapshots-to-keep");
  const age = rawProperty(table.properties, "history.expire.max-snapshot-age-ms");
  const keep = rawProperty(table.properties, "history.expire.min-snapshots-to-keep");
  return {
    maxAge,
    minKeep,
    item: {
      source: "catalog",
      detail: `history.expire.max-snapshot-age-ms = ${age ?? `${maxAge} (default)`}, history.expire.min-snapshots-to-keep = ${keep ?? `${minKeep} (default)`}`,
      data: {
        "history.expire.max-snapshot-age-ms": age,
        "history.expire.min-snapshots-to-keep": keep,
        effectiveMaxSnapshotAgeMs: maxAge,
        effectiveMinSnapshotsToKeep: minKeep,
      },
    },
  };
}

function snapshotItem(s: Snapshot, note: string): EvidenceItem {
  return {
    source: "catalog",
    detail: `Writer snapshot ${s.snapshotId} at ${iso(s.timestampMs)} (checkpoint ${checkpointIdOf(s) ?? "?"}): ${note}`,
    data: {
      snapshotId: s.snapshotId,
      committedAt: iso(s.timestampMs),
      maxCommittedCheckpointId: checkpointIdOf(s) ?? null,
      ...(s.parentSnapshotId ? { parentSnapshotId: s.parentSnapshotId } : {}),
    },
  };
}

/** Direct evidence that the writer's restore point is gone. */
function restoreEvidence(ctx: DiagnosisContext): EvidenceItem[] {
  const items: EvidenceItem[] = [];
  const job = ctx.job;
  const newest = ctx.writerNewest;
  const since = newest?.timestampMs ?? Number.NEGATIVE_INFINITY;
  const missing = job?.exceptions.find(
    (e) =>
      e.timestampMs > since &&
      MISSING_ON_RESTORE.test(`${e.exceptionName}: ${e.message}\n${e.stacktrace.slice(0, 4000)}`),
  );
  if (job && missing) {
    items.push({
      source: "flink",
      detail: `${simpleClassName(missing.exceptionName)}: ${missing.message.slice(0, 300)}${missing.taskName ? ` (${missing.taskName})` : ""} at ${iso(missing.timestampMs)}`,
      data: {
        jobId: job.job.jobId,
        exception: `${missing.exceptionName}: ${missing.message.slice(0, 300)}`,
        at: iso(missing.timestampMs),
      },
    });
  }
  if (newest?.parentSnapshotId && !ctx.snapshots.some((s) => s.snapshotId === newest.parentSnapshotId)) {
    items.push(
      snapshotItem(
        newest,
        `its parent ${newest.parentSnapshotId} was expired, so the writer's history ends here and the next expiry removes it`,
      ),
    );
  }
  const restored = job?.checkpoints?.latestRestored;
  const committed = newest ? Number(checkpointIdOf(newest)) : Number.NaN;
  if (job && restored && Number.isFinite(committed) && committed < restored.id - 1) {
    items.push({
      source: "flink",
      detail: `Job restored from checkpoint ${restored.id}${restored.restoreTimestampMs ? ` at ${iso(restored.restoreTimestampMs)}` : ""}, but the table's newest commit of ${describeWriter(ctx)} holds checkpoint ${committed}: the commits in between are gone from the table`,
      data: {
        jobId: job.job.jobId,
        restoredCheckpointId: restored.id,
        tableMaxCommittedCheckpointId: committed,
      },
    });
  }
  const oldest = ctx.snapshots[0];
  // Only with evidence of expiry: a job whose commits carry no writer id (its subtasks commit on
  // their own) has no snapshot of its own either, and nothing of it was expired.
  if (
    job &&
    oldest &&
    !newest &&
    job.job.startTimeMs < oldest.timestampMs &&
    ctx.expiry.expiredIds.length > 0
  ) {
    items.push(
      {
        source: "flink",
        detail: `${describeWriter(ctx)} started at ${iso(job.job.startTimeMs)}`,
        data: { jobId: job.job.jobId, startedAt: iso(job.job.startTimeMs) },
      },
      {
        source: "catalog",
        detail: `Oldest retained snapshot ${oldest.snapshotId} at ${iso(oldest.timestampMs)}; none carries flink.job-id ${job.job.jobId}, and ${ctx.expiry.expiredIds.length} older snapshot ids were expired (${ctx.expiry.expiredIds.slice(0, 3).join(", ")})`,
        data: {
          expiredSnapshotIds: ctx.expiry.expiredIds.slice(0, 10),
          oldestSnapshotId: oldest.snapshotId,
          oldestAt: iso(oldest.timestampMs),
          snapshotCount: ctx.snapshots.length,
        },
      },
    );
  }
  return items;
}

export const writerLastSnapshotAtRisk: DiagnosisRule = {
  id: "writer-last-snapshot-at-risk",
  evaluate(ctx) {
    if (!ctx.table || ctx.writer?.kind !== "flink") return null;
    const settings = settingsItem(ctx);
    const direct = restoreEvidence(ctx);
    if (direct.length > 0) {
      return finding(
        "critical",
        `${describeWriter(ctx)} cannot restore cleanly: the snapshot or metadata holding its last committed checkpoint is gone (expired)`,
        [...direct, settings.item],
      );
    }
    const newest = ctx.writerNewest;
    if (!newest || ctx.writerAgeMs === undefined) return null;
    const newer = ctx.snapshots.length - 1 - ctx.writerNewestIndex;
    if (ctx.writerAgeMs < settings.maxAge * WARN_SHARE || newer < settings.minKeep) return null;
    const expired = ctx.writerAgeMs >= settings.maxAge;
    return finding(
      "warning",
      `The Flink writer's last snapshot is ${formatDuration(ctx.writerAgeMs)} old; expiry ${expired ? "will" : "can soon"} remove it (max age ${formatDuration(settings.maxAge)}), losing the job's last committed checkpoint id`,
      [snapshotItem(newest, `${plural(newer, "newer snapshot")} by others`), settings.item],
    );
  },
};
