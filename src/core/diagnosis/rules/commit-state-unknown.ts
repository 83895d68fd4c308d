// The writer lost the catalog mid-commit. That stays relevant until it is checked, even after the
// writer committed again: the report says whether the in-flight snapshot landed, and whether a
// later snapshot committed the same data a second time (the duplicate blind retries cause).
//
//   in flight   the writer's snapshots from IN_FLIGHT_BEFORE_MS before the failure (a commit's
//               timestamp is taken before the swap) to one commit interval after it;
//   landed      one of those exists;
//   duplicate   two snapshots of the writer (any job id under the same job name: a restart gets
//               a new id) since the in-flight window opened carry the same
//               flink.max-committed-checkpoint-id, or the landed one and the next one add the same
//               data-file count, record count and bytes.

import { checkpointIdOf, flinkJobIdOf } from "../../attribution/attribute.js";
import type { Snapshot } from "../../evidence/model.js";
import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { compact, describeWriter, failureItem, flinkJobLabel, quoteOf } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso, lowerBound } from "../snapshots.js";

const IN_FLIGHT_BEFORE_MS = 60_000;

export interface UnknownCommitCheck {
  failureMs: number;
  /** The writer's newest snapshot before the in-flight window. */
  before?: Snapshot;
  /** The in-flight snapshot, when it landed. */
  landed?: Snapshot;
  /** The writer's first snapshot after the in-flight window (it resumed). */
  resumed?: Snapshot;
  /** Two snapshots holding the same data, when a re-commit duplicated it. */
  duplicate?: { first: Snapshot; second: Snapshot; by: "checkpoint-id" | "same-data" };
}

function sameData(a: Snapshot, b: Snapshot): boolean {
  const keys = ["added-data-files", "added-records", "added-files-size"];
  return keys.every((k) => a.summary[k] !== undefined && a.summary[k] === b.summary[k]);
}

export function checkUnknownCommit(ctx: DiagnosisContext, failureMs: number): UnknownCommitCheck {
  // The writer's lineage: its earlier runs under the same job name count as the writer.
  const mine = ctx.isWriter;
  const opens = failureMs - IN_FLIGHT_BEFORE_MS;
  const closes = failureMs + ctx.intervalMs;
  const out: UnknownCommitCheck = { failureMs };
  const after: Snapshot[] = [];
  const start = lowerBound(ctx.snapshots, opens);
  for (let i = start - 1; i >= 0; i--) {
    if (mine(ctx.snapshots[i]!)) {
      out.before = ctx.snapshots[i]!;
      break;
    }
  }
  for (let i = start; i < ctx.snapshots.length && after.length < 200; i++) {
    const s = ctx.snapshots[i]!;
    if (mine(s)) after.push(s);
  }
  const first = after[0];
  if (first && first.timestampMs <= closes) out.landed = first;
  out.resumed = after.find((s) => s.timestampMs > closes);
  const seen = new Map<string, Snapshot>();
  for (const s of [...(out.before ? [out.before] : []), ...after]) {
    const id = checkpointIdOf(s);
    if (id === undefined) continue;
    const earlier = seen.get(id);
    if (earlier) {
      out.duplicate = { first: earlier, second: s, by: "checkpoint-id" };
      break;
    }
    seen.set(id, s);
  }
  if (!out.duplicate && out.landed) {
    const next = after[after.indexOf(out.landed) + 1];
    if (next && sameData(out.landed, next))
      out.duplicate = { first: out.landed, second: next, by: "same-data" };
  }
  return out;
}

function describe(ctx: DiagnosisContext, s: Snapshot): string {
  const checkpoint = checkpointIdOf(s);
  const jobId = flinkJobIdOf(s);
  const run =
    jobId && ctx.writer?.kind === "flink" && jobId !== ctx.writer.jobId
      ? `, job ${flinkJobLabel(jobId, ctx.jobNames.get(jobId))}`
      : "";
  return `${s.snapshotId} at ${iso(s.timestampMs)}${checkpoint ? ` (checkpoint ${checkpoint}${run})` : run ? ` (${run.slice(2)})` : ""}`;
}

function checkItems(ctx: DiagnosisContext, check: UnknownCommitCheck): EvidenceItem[] {
  const who = describeWriter(ctx);
  const at = iso(check.failureMs);
  const items: EvidenceItem[] = [];
  items.push(
    check.landed
      ? {
          source: "catalog",
          detail: `The in-flight commit landed: snapshot ${describe(ctx, check.landed)}, ${formatDuration(Math.abs(check.landed.timestampMs - check.failureMs))} ${check.landed.timestampMs >= check.failureMs ? "after" : "before"} the failure at ${at}`,
          data: {
            landedAfterFailure: true,
            snapshotId: check.landed.snapshotId,
            committedAt: iso(check.landed.timestampMs),
            failureAt: at,
            ...(checkpointIdOf(check.landed) ? { checkpointId: checkpointIdOf(check.landed) } : {}),
          },
        }
      : {
          source: "catalog",
          detail: `The in-flight commit did not land: no snapshot from ${who} within ${formatDuration(ctx.intervalMs)} of the failure at ${at}${check.before ? `; the one before is ${describe(ctx, check.before)}` : ""}`,
          data: {
            landedAfterFailure: false,
            failureAt: at,
            ...(check.before
              ? { previousSnapshotId: check.before.snapshotId, previousAt: iso(check.before.timestampMs) }
              : {}),
          },
        },
  );
  if (check.resumed) {
    items.push({
      source: "catalog",
      detail: `${who} committed again afterwards: snapshot ${describe(ctx, check.resumed)}`,
      data: { resumedSnapshotId: check.resumed.snapshotId, resumedAt: iso(check.resumed.timestampMs) },
    });
  }
  const d = check.duplicate;
  if (d) {
    items.push({
      source: "catalog",
      detail:
        d.by === "checkpoint-id"
          ? `Snapshots ${d.first.snapshotId} and ${d.second.snapshotId} both carry flink.max-committed-checkpoint-id ${checkpointIdOf(d.first)}: the same checkpoint was committed twice`
          : `Snapshots ${d.first.snapshotId} and ${d.second.snapshotId} add the same ${d.first.summary["added-data-files"]} data files and ${d.first.summary["added-records"]} records: likely the same data committed twice`,
      data: {
        duplicate: true,
        by: d.by,
        snapshotIds: [d.first.snapshotId, d.second.snapshotId],
      },
    });
  } else if (check.landed || check.resumed) {
    items.push({
      source: "catalog",
      detail: `No later snapshot from ${who} re-commits the same checkpoint or the same data`,
      data: { duplicate: false },
    });
  }
  return items;
}

/** Snapshot ids a person compares to settle the unknown commit. */
export function snapshotsToCompare(check: UnknownCommitCheck): string[] {
  const ids = [
    check.before?.snapshotId,
    check.landed?.snapshotId,
    check.duplicate?.first.snapshotId,
    check.duplicate?.second.snapshotId,
    check.resumed?.snapshotId,
  ].filter((id): id is string => id !== undefined);
  return [...new Set(ids)];
}

export const commitStateUnknown: DiagnosisRule = {
  id: "commit-state-unknown",
  evaluate(ctx) {
    const failure = ctx.failures.find((f) => f.kind === "state-unknown");
    if (!failure) return null;
    const count = ctx.failures.filter((f) => f.kind === "state-unknown").length;
    const when = failure.atMs !== undefined ? ` at ${iso(failure.atMs)}` : "";
    const quote = quoteOf(ctx.failures, failure);
    if (failure.atMs === undefined || !ctx.table || !ctx.writer) {
      const s = ctx.writerNewest;
      return finding(
        "critical",
        `The writer lost the catalog mid-commit${when}; check whether its snapshot landed before restarting anything`,
        compact([
          failureItem(failure, count),
          s
            ? {
                source: "catalog",
                detail: `Newest snapshot from ${describeWriter(ctx)} is ${describe(ctx, s)}: compare with the time in the writer's log`,
                data: { snapshotId: s.snapshotId, committedAt: iso(s.timestampMs), landedAfterFailure: null },
              }
            : null,
        ]),
        { quote },
      );
    }
    const check = checkUnknownCommit(ctx, failure.atMs);
    const summary = check.duplicate
      ? `The writer lost the catalog mid-commit${when}, the commit landed and a later snapshot committed the same data again: a duplicate to remove`
      : check.landed
        ? `The writer lost the catalog mid-commit${when}; the snapshot landed, so do not replay that commit`
        : check.resumed
          ? `The writer lost the catalog mid-commit${when}; the in-flight snapshot did not land and the writer has committed since: confirm its data was re-committed once`
          : `The writer lost the catalog mid-commit${when} and none of its snapshots landed since; check before restarting anything`;
    // Whether the commit landed is answered once the writer's snapshots say so: it landed, or the
    // writer (by its identity across restarts) committed after the window without it.
    const answered = check.landed !== undefined || check.resumed !== undefined;
    return finding("critical", summary, compact([failureItem(failure, count), ...checkItems(ctx, check)]), {
      quote,
      ...(answered ? { answered: true } : {}),
      ...(check.duplicate
        ? { answer: "duplicate" as const }
        : !check.landed && check.resumed
          ? { answer: "recommitted" as const }
          : {}),
    });
  },
};
