// The writer lost the catalog mid-commit. The one thing that matters first: did its snapshot land?

import type { EvidenceItem } from "../../report/schema.js";
import type { DiagnosisContext } from "../context.js";
import { compact, describeWriter, failureItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { formatDuration, iso, lowerBound } from "../snapshots.js";

function landingEvidence(
  ctx: DiagnosisContext,
  failureMs: number | undefined,
): { item: EvidenceItem | null; landed: boolean | null } {
  if (!ctx.table || !ctx.writer) return { item: null, landed: null };
  const who = describeWriter(ctx);
  if (failureMs === undefined) {
    const s = ctx.writerNewest;
    return {
      item: {
        source: "catalog",
        detail: s
          ? `The failure has no time; newest snapshot from ${who} is ${s.snapshotId} at ${iso(s.timestampMs)}: compare with the time in the writer's log`
          : `No snapshot from ${who} in the table`,
        data: s
          ? { snapshotId: s.snapshotId, committedAt: iso(s.timestampMs), landedAfterFailure: null }
          : { landedAfterFailure: null },
      },
      landed: null,
    };
  }
  // First writer snapshot at or after the failure, scanning forward from a binary-searched start.
  for (let i = lowerBound(ctx.snapshots, failureMs); i < ctx.snapshots.length; i++) {
    const s = ctx.snapshots[i]!;
    if (!ctx.isWriter(s)) continue;
    return {
      item: {
        source: "catalog",
        detail: `Snapshot ${s.snapshotId} from ${who} landed at ${iso(s.timestampMs)}, ${formatDuration(s.timestampMs - failureMs)} after the failure at ${iso(failureMs)}`,
        data: {
          landedAfterFailure: true,
          snapshotId: s.snapshotId,
          committedAt: iso(s.timestampMs),
          failureAt: iso(failureMs),
        },
      },
      landed: true,
    };
  }
  const s = ctx.writerNewest;
  return {
    item: {
      source: "catalog",
      detail: s
        ? `No snapshot from ${who} after the failure at ${iso(failureMs)}; its newest is ${s.snapshotId} at ${iso(s.timestampMs)}${s.summary["flink.max-committed-checkpoint-id"] ? ` (checkpoint ${s.summary["flink.max-committed-checkpoint-id"]})` : ""}`
        : `No snapshot from ${who} in the table, before or after the failure at ${iso(failureMs)}`,
      data: {
        landedAfterFailure: false,
        failureAt: iso(failureMs),
        ...(s ? { newestSnapshotId: s.snapshotId, newestCommittedAt: iso(s.timestampMs) } : {}),
      },
    },
    landed: false,
  };
}

export const commitStateUnknown: DiagnosisRule = {
  id: "commit-state-unknown",
  evaluate(ctx) {
    const failure = ctx.failures.find((f) => f.kind === "state-unknown");
    if (!failure) return null;
    const count = ctx.failures.filter((f) => f.kind === "state-unknown").length;
    const { item, landed } = landingEvidence(ctx, failure.atMs);
    const when = failure.atMs !== undefined ? ` at ${iso(failure.atMs)}` : "";
    const summary =
      landed === true
        ? `The writer lost the catalog mid-commit${when}; a snapshot of it landed afterwards, so do not replay that commit`
        : landed === false
          ? `The writer lost the catalog mid-commit${when} and none of its snapshots landed since; check before restarting anything`
          : `The writer lost the catalog mid-commit${when}; check whether its snapshot landed before restarting anything`;
    return finding("commit-state-unknown", "critical", summary, compact([failureItem(failure, count), item]));
  },
};
