// Evidence items several rules quote: the writer's last commit, a failure line, a snapshot list.

import { checkpointIdOf, committerOf, describeCommitter, recognisedBy } from "../attribution/attribute.js";
import type { Snapshot } from "../evidence/model.js";
import { groupDigits } from "../plural.js";
import type { EvidenceItem, ExceptionQuote } from "../report/schema.js";
import { formatDuration } from "../words/duration.js";
import type { DiagnosisContext } from "./context.js";
import type { CommitFailure } from "./failures.js";
import { MAX_LISTED } from "./rule.js";
import { iso, snapshotData } from "./snapshots.js";

/** A job id as people quote it: the first four characters, e.g. "4f2a…". */
function shortJobId(jobId: string): string {
  return jobId.length > 8 ? `${jobId.slice(0, 4)}…` : jobId;
}

/** A Flink job as people know it: "events-ingest (4f2a…)", or the id when Flink did not name it. */
export function flinkJobLabel(jobId: string, name: string | undefined): string {
  return name ? `${name} (${shortJobId(jobId)})` : jobId;
}

export function describeWriter(ctx: DiagnosisContext): string {
  if (!ctx.writer) return "the writer";
  const cluster = writerCluster(ctx);
  const on = cluster ? ` on ${cluster}` : "";
  return ctx.writer.kind === "flink"
    ? `Flink job ${flinkJobLabel(ctx.writer.jobId, ctx.jobNames.get(ctx.writer.jobId))}${on}`
    : `connector ${ctx.writer.connector}${on}`;
}

/** The Flink source or Connect cluster the writer runs on, when named sources are read. */
export function writerCluster(ctx: DiagnosisContext): string | undefined {
  const w = ctx.writer;
  if (!w) return undefined;
  if (w.kind === "flink") return ctx.jobSources.get(w.jobId);
  const connect = ctx.connect;
  if (!connect) return undefined;
  const all = [connect, ...(connect.others ?? [])];
  return all.find((c) => c.connector.name === w.connector)?.cluster;
}

/** The records a snapshot added, as its summary says (absent or unreadable: undefined). */
function recordsOf(s: { summary: Record<string, string> }): number | undefined {
  const n = Number(s.summary["added-records"]);
  return s.summary["added-records"] !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** The writer's newest snapshot and its age; null when the catalog has none (or did not answer). */
export function writerLastCommit(ctx: DiagnosisContext): EvidenceItem | null {
  const s = ctx.writerNewest;
  if (!s || ctx.writerAgeMs === undefined) return null;
  const tie = ctx.timing?.ties.find((t) => t.snapshot === s);
  return {
    source: "catalog",
    detail: `Newest snapshot from ${describeWriter(ctx)}: ${s.snapshotId} at ${iso(s.timestampMs)} (${formatDuration(ctx.writerAgeMs)} ago; expected every ${formatDuration(ctx.intervalMs)}); ${tie ? `attributed by timing: ${formatDuration(tie.delayMs)} after ${ctx.timing?.basis === "flink-checkpoints" ? "a completed checkpoint" : "its commit slot"} at ${iso(tie.anchorMs)}` : `recognised by ${recognisedBy(committerOf(s))}`}`,
    data: {
      snapshotId: s.snapshotId,
      committedAt: iso(s.timestampMs),
      /** Marks the failing writer's newest commit: the status card counts "failing for" from it. */
      writerLastCommitAt: iso(s.timestampMs),
      ...(ctx.writer?.kind === "flink" ? { jobId: ctx.writer.jobId } : {}),
      ageSeconds: Math.round(ctx.writerAgeMs / 1000),
      expectedIntervalMs: ctx.intervalMs,
      intervalSource: ctx.intervalSource,
      ...(recordsOf(s) !== undefined ? { addedRecords: recordsOf(s) } : {}),
      attributedBy: tie ? "timing" : "keys",
      ...(checkpointIdOf(s) ? { maxCommittedCheckpointId: checkpointIdOf(s) } : {}),
    },
  };
}

/** What ties id-less snapshots to the writer by timing, when something does. */
export function timingItem(ctx: DiagnosisContext): EvidenceItem | null {
  const t = ctx.timing;
  if (!t) return null;
  const what =
    t.basis === "flink-checkpoints"
      ? `within ${formatDuration(t.toleranceMs)} after ${t.anchors} of its completed checkpoints (every ${formatDuration(t.intervalMs)}${t.fromHistory ? "" : ", extended at the interval"})`
      : `a whole commit interval (${formatDuration(t.intervalMs)}) apart, within ${formatDuration(t.toleranceMs)}`;
  return {
    source: "catalog",
    detail: `Attributed by timing: ${t.ties.length} snapshots without a writer id landed ${what}${t.untied > 0 ? `; ${t.untied} did not` : ""}`,
    data: {
      attributedBy: "timing",
      basis: t.basis,
      tied: t.ties.length,
      untied: t.untied,
      anchors: t.anchors,
      toleranceMs: t.toleranceMs,
      intervalMs: t.intervalMs,
    },
  };
}

export function elapsedMetric(ctx: DiagnosisContext): EvidenceItem | null {
  if (ctx.elapsedSinceCommitMs === undefined) return null;
  const seconds = Math.round(ctx.elapsedSinceCommitMs / 1000);
  return {
    source:
      ctx.job?.committer?.elapsedSecondsSinceLastSuccessfulCommit !== undefined ? "flink" : "prometheus",
    detail: `elapsedSecondsSinceLastSuccessfulCommit = ${groupDigits(seconds)} s (stale after ${groupDigits(Math.round(ctx.staleAfterMs / 1000))} s)`,
    data: {
      elapsedSecondsSinceLastSuccessfulCommit: seconds,
      staleAfterSeconds: Math.round(ctx.staleAfterMs / 1000),
    },
  };
}

/** The failures of the same kind and root class as `newest` (newest first), for counting. */
function sameFailures(failures: readonly CommitFailure[], newest: CommitFailure): CommitFailure[] {
  return failures.filter(
    (f) => f.kind === newest.kind && f.source === newest.source && f.root.className === newest.root.className,
  );
}

/** The quote a triage finding caused by an exception carries: root class and message, count, first and last seen. */
export function quoteOf(failures: readonly CommitFailure[], newest: CommitFailure): ExceptionQuote {
  const same = sameFailures(failures, newest);
  const times = same.map((f) => f.atMs).filter((t): t is number => t !== undefined);
  return {
    source: newest.source,
    exception: newest.root.className,
    message: newest.root.message,
    ...(newest.thrownAs ? { thrownAs: newest.thrownAs } : {}),
    count: Math.max(1, same.length),
    ...(times.length > 0 ? { firstSeen: iso(Math.min(...times)), lastSeen: iso(Math.max(...times)) } : {}),
    ...(newest.where ? { where: newest.where } : {}),
  };
}

/** The quote in words, for an evidence line and the renderers. */
export function quoteLine(q: ExceptionQuote): string {
  const when =
    q.firstSeen && q.lastSeen
      ? q.count > 1
        ? `, first ${q.firstSeen}, last ${q.lastSeen}`
        : ` at ${q.lastSeen}`
      : "";
  const where = q.where ? ` (${q.where})` : "";
  return `${q.exception}${q.message ? `: ${q.message}` : ""}${where} — seen ${q.count === 1 ? "once" : `${q.count} times`}${when}`;
}

export function failureItem(failure: CommitFailure, count = 1): EvidenceItem {
  const when = failure.atMs !== undefined ? ` at ${iso(failure.atMs)}` : "";
  const where = failure.where ? ` (${failure.where})` : "";
  const times = count > 1 ? ` — seen ${count} times` : "";
  return {
    source: failure.source,
    detail: `${failure.line}${where}${when}${times}`,
    data: {
      exception: failure.line,
      ...(failure.atMs !== undefined ? { at: iso(failure.atMs) } : {}),
      ...(failure.where ? { where: failure.where } : {}),
      count,
    },
  };
}

/** One item listing up to MAX_LISTED snapshots plus the total. */
export function snapshotListItem(label: string, snapshots: Snapshot[], total: number): EvidenceItem {
  const listed = snapshots.slice(0, MAX_LISTED);
  const names = listed.map(
    (s) => `${s.snapshotId} (${s.operation}, ${describeCommitter(committerOf(s))}, ${iso(s.timestampMs)})`,
  );
  const more = total > listed.length ? ` … and ${total - listed.length} more` : "";
  return {
    source: "catalog",
    detail: `${label}: ${names.join("; ")}${more}`,
    data: { count: total, snapshots: listed.map(snapshotData) },
  };
}

export function windowItem(ctx: DiagnosisContext): EvidenceItem | null {
  const w = ctx.window;
  if (!w) return null;
  return {
    source: "catalog",
    detail: `Window: from the writer's last commit at ${iso(w.startMs)} to ${iso(w.endMs)} (failure ${w.failureSource === "exception" ? "exception" : "expected commit"} at ${iso(w.failureMs)})`,
    data: {
      from: iso(w.startMs),
      to: iso(w.endMs),
      failureAt: iso(w.failureMs),
      failureSource: w.failureSource,
    },
  };
}

export function compact<T>(items: Array<T | null | undefined>): T[] {
  return items.filter((item): item is T => item !== null && item !== undefined);
}
