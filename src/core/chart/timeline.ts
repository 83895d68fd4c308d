// The commit timeline as data: who committed when, which commits failed, the diagnosis window,
// and (after a change) the change and the recovery. Pure: evidence and times in, a plain model out.
// The picture is drawn from this model by a separate spec builder and rasterised in an adapter,
// so tests read lanes and marks here without decoding pixels.

import { buildContext, type DiagnosisContext } from "../diagnosis/context.js";
import type { FailureKind } from "../diagnosis/failures.js";
import { type CommitterIdentity, committerKey, committerOf } from "../diagnosis/snapshots.js";
import type { Evidence, MetricPoint } from "../evidence/model.js";
import { formatTableName } from "../table-name.js";

export const CHART_OPERATIONS = ["append", "overwrite", "replace", "delete", "other"] as const;
export type ChartOperation = (typeof CHART_OPERATIONS)[number];

export interface TimelineLane {
  id: string;
  label: string;
  kind: CommitterIdentity["kind"] | "merged";
  /** The writer the diagnosis is about. */
  writer: boolean;
}

export interface TimelineMark {
  lane: string;
  atMs: number;
  operation: ChartOperation;
}

export interface TimelineFailure {
  lane: string;
  atMs: number;
  kind: FailureKind;
}

export interface TimelineCheckpoint {
  atMs: number;
  ok: boolean;
}

export const TREND_IDS = [
  "lastCommitDurationMs",
  "elapsedSecondsSinceLastSuccessfulCommit",
  "committedDataFilesPerCommit",
  "lastCheckpointDuration",
  "connectSinkLag",
] as const;
export type TrendId = (typeof TREND_IDS)[number];

export interface TrendSeries {
  id: TrendId;
  label: string;
  unit: "s" | "min" | "files" | "records";
  points: MetricPoint[];
}

export interface TimelineChart {
  table: string;
  fromMs: number;
  toMs: number;
  /** Writer first, then the busiest committers; the rest merged into one lane. */
  lanes: TimelineLane[];
  marks: TimelineMark[];
  failures: TimelineFailure[];
  /** Flink checkpoints of the writer job, drawn as a thin strip under its lane. */
  checkpoints: TimelineCheckpoint[];
  checkpointLane?: string;
  /** From the writer's last success to the failure (or now). */
  window?: { fromMs: number; toMs: number };
  change?: { atMs: number; label: string };
  recovery?: { atMs: number; label: string };
  trends: TrendSeries[];
}

export interface TimelineOptions {
  tableName?: string;
  /** A change applied to the table, drawn as a vertical line. */
  change?: { atMs: number; label: string };
  /** When the writer committed again after the change. */
  recovery?: { atMs: number; label: string };
  /** The window of the first diagnosis, kept on the picture after recovery. */
  window?: { fromMs: number; toMs: number };
}

/** At most this many committer lanes; the rest share one "other committers" lane. */
export const MAX_LANES = 5;
/** History before the window, in expected commit intervals. */
const HISTORY_INTERVALS = 8;
/** The picture never spans more than a day, nor less than half an hour. */
const MAX_SPAN_MS = 24 * 3_600_000;
const MIN_SPAN_MS = 30 * 60_000;
const MERGED_LANE = "merged";

export function buildTimeline(evidence: Evidence, now: number, options: TimelineOptions = {}): TimelineChart {
  const ctx = buildContext(evidence, now, options.tableName ? { tableName: options.tableName } : {});
  const { fromMs, toMs } = span(ctx, now, options);
  const writerKey = writerLaneKey(ctx);

  // Count commits per committer inside the span to pick the lanes.
  const counts = new Map<string, { identity: CommitterIdentity; count: number }>();
  const inSpan = ctx.snapshots.filter((s) => s.timestampMs >= fromMs && s.timestampMs <= toMs);
  for (const s of inSpan) {
    const identity = committerOf(s);
    const key = committerKey(identity);
    const entry = counts.get(key) ?? { identity, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const ordered = [...counts.entries()]
    .filter(([key]) => key !== writerKey)
    .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]));
  const lanes: TimelineLane[] = [];
  if (writerKey) lanes.push(writerLane(ctx, writerKey, counts.get(writerKey)?.identity));
  const room = MAX_LANES - lanes.length;
  const kept = ordered.length > room ? ordered.slice(0, room - 1) : ordered;
  for (const [key, { identity }] of kept) {
    lanes.push({ id: key, label: laneLabel(identity, evidence), kind: identity.kind, writer: false });
  }
  const laneIds = new Set(lanes.map((l) => l.id));
  if (ordered.length > kept.length) {
    lanes.push({ id: MERGED_LANE, label: "other committers", kind: "merged", writer: false });
  }

  const marks: TimelineMark[] = inSpan.map((s) => {
    const key = committerKey(committerOf(s));
    return {
      lane: laneIds.has(key) ? key : MERGED_LANE,
      atMs: s.timestampMs,
      operation: chartOperation(s.operation),
    };
  });

  const failureLane = writerKey ?? lanes[0]?.id;
  const failures: TimelineFailure[] = [];
  if (failureLane) {
    for (const f of ctx.failures) {
      // Connect traces carry no time: the failure is placed where the window says it happened.
      const atMs = f.atMs ?? ctx.window?.failureMs ?? now;
      if (atMs >= fromMs && atMs <= toMs) failures.push({ lane: failureLane, atMs, kind: f.kind });
    }
    // Flink keeps older commit exceptions too: every commit failure in the span is a red mark.
    for (const e of ctx.job?.exceptions ?? []) {
      if (e.timestampMs < fromMs || e.timestampMs > toMs) continue;
      if (failures.some((f) => f.atMs === e.timestampMs)) continue;
      const kind = exceptionKind(e.exceptionName, e.message, e.stacktrace);
      if (kind) failures.push({ lane: failureLane, atMs: e.timestampMs, kind });
    }
    failures.sort((a, b) => a.atMs - b.atMs);
  }

  const checkpoints: TimelineCheckpoint[] = [];
  for (const c of ctx.job?.checkpoints?.history ?? []) {
    const atMs =
      c.latestAckTimestampMs && c.latestAckTimestampMs > 0 ? c.latestAckTimestampMs : c.triggerTimestampMs;
    if (atMs < fromMs || atMs > toMs) continue;
    if (c.status !== "COMPLETED" && c.status !== "FAILED") continue;
    checkpoints.push({ atMs, ok: c.status === "COMPLETED" });
  }
  checkpoints.sort((a, b) => a.atMs - b.atMs);

  // A healthy writer has no failure window to shade.
  const window =
    options.window ??
    (ctx.window && ctx.troubled ? { fromMs: ctx.window.startMs, toMs: ctx.window.endMs } : undefined);

  return {
    table: options.tableName ?? formatTableName(evidence.table),
    fromMs,
    toMs,
    lanes,
    marks,
    failures,
    checkpoints,
    ...(checkpoints.length > 0 && ctx.writer?.kind === "flink" && writerKey
      ? { checkpointLane: writerKey }
      : {}),
    ...(window ? { window: clampWindow(window, fromMs, toMs) } : {}),
    ...(options.change ? { change: options.change } : {}),
    ...(options.recovery ? { recovery: options.recovery } : {}),
    trends: trends(evidence, fromMs, toMs),
  };
}

function span(
  ctx: DiagnosisContext,
  now: number,
  options: TimelineOptions,
): { fromMs: number; toMs: number } {
  const interval = ctx.intervalMs;
  const anchor = options.window?.fromMs ?? ctx.window?.startMs ?? ctx.writerNewest?.timestampMs ?? now;
  let fromMs = anchor - HISTORY_INTERVALS * interval;
  // A little room after the last thing drawn, so the newest marks do not sit on the frame.
  const pad = Math.max(interval / 2, 60_000);
  const last = Math.max(now, options.recovery?.atMs ?? 0, options.change?.atMs ?? 0);
  const toMs = last + pad;
  if (toMs - fromMs > MAX_SPAN_MS) fromMs = toMs - MAX_SPAN_MS;
  if (toMs - fromMs < MIN_SPAN_MS) fromMs = toMs - MIN_SPAN_MS;
  return { fromMs, toMs };
}

function clampWindow(window: { fromMs: number; toMs: number }, fromMs: number, toMs: number) {
  return {
    fromMs: Math.max(fromMs, window.fromMs),
    toMs: Math.min(toMs, Math.max(window.toMs, window.fromMs)),
  };
}

function writerLaneKey(ctx: DiagnosisContext): string | undefined {
  const writer = ctx.writer;
  if (!writer) return undefined;
  if (writer.kind === "flink") return committerKey({ kind: "flink", jobId: writer.jobId });
  // Snapshots name the connector through the task id; older sinks only mark Connect commits.
  const named = ctx.snapshots.findLast((s) => ctx.isWriter(s));
  return named
    ? committerKey(committerOf(named))
    : committerKey({ kind: "connect", connector: writer.connector });
}

function writerLane(
  ctx: DiagnosisContext,
  key: string,
  identity: CommitterIdentity | undefined,
): TimelineLane {
  const writer = ctx.writer!;
  const fallback: CommitterIdentity =
    writer.kind === "flink"
      ? { kind: "flink", jobId: writer.jobId }
      : { kind: "connect", connector: writer.connector };
  const id = identity ?? fallback;
  return { id: key, label: laneLabel(id, ctx.evidence), kind: id.kind, writer: true };
}

const MAX_LABEL = 20;

/** Long ids keep their head and tail: "application_17…0000_0587". */
export function shorten(text: string, max = MAX_LABEL): string {
  if (text.length <= max) return text;
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

function laneLabel(identity: CommitterIdentity, evidence: Evidence): string {
  switch (identity.kind) {
    case "flink": {
      const name = evidence.flink?.jobs.find((j) => j.jobId === identity.jobId)?.name;
      return name ? `Flink ${shorten(name, MAX_LABEL - 6)}` : `Flink job ${identity.jobId.slice(0, 8)}…`;
    }
    case "spark":
      // YARN ids share a long prefix; the cluster stamp and sequence tell them apart.
      return `Spark …${identity.appId.slice(-9)}`;
    case "connect":
      return identity.connector ? `Connect ${shorten(identity.connector, MAX_LABEL - 8)}` : "Kafka Connect";
    case "other":
      return shorten(identity.label);
    default:
      return "unattributed";
  }
}

function chartOperation(operation: string): ChartOperation {
  return (CHART_OPERATIONS as readonly string[]).includes(operation)
    ? (operation as ChartOperation)
    : "other";
}

const EXCEPTION_KINDS: ReadonlyArray<[string, FailureKind]> = [
  ["CommitStateUnknownException", "state-unknown"],
  ["ValidationException", "validation"],
  ["CommitFailedException", "commit-failed"],
];

function exceptionKind(name: string, message: string, stack: string): FailureKind | undefined {
  const text = `${name} ${message} ${stack}`;
  return EXCEPTION_KINDS.find(([needle]) => text.includes(needle))?.[1];
}

const TREND_META: Record<TrendId, { label: string; unit: TrendSeries["unit"]; scale: number }> = {
  lastCommitDurationMs: { label: "commit duration", unit: "s", scale: 1 / 1000 },
  elapsedSecondsSinceLastSuccessfulCommit: { label: "time since last commit", unit: "min", scale: 1 / 60 },
  committedDataFilesPerCommit: { label: "files per commit", unit: "files", scale: 1 },
  lastCheckpointDuration: { label: "checkpoint duration", unit: "s", scale: 1 / 1000 },
  connectSinkLag: { label: "sink lag (records)", unit: "records", scale: 1 },
};

function trends(evidence: Evidence, fromMs: number, toMs: number): TrendSeries[] {
  if (evidence.sources.prometheus?.status !== "ok") return [];
  const out: TrendSeries[] = [];
  for (const id of TREND_IDS) {
    const points = evidence.prometheus?.series[id];
    if (!points || points.length < 2) continue;
    const meta = TREND_META[id];
    const inSpan = points
      .filter((p) => p.atMs >= fromMs && p.atMs <= toMs)
      .map((p) => ({ atMs: p.atMs, value: Number((p.value * meta.scale).toPrecision(6)) }));
    if (inSpan.length >= 2) out.push({ id, label: meta.label, unit: meta.unit, points: inSpan });
  }
  return out;
}

/** A stored chart read back as JSON: enough shape to draw it. */
export function isTimelineChart(value: unknown): value is TimelineChart {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<TimelineChart>;
  return (
    typeof v.table === "string" &&
    typeof v.fromMs === "number" &&
    typeof v.toMs === "number" &&
    Array.isArray(v.lanes) &&
    Array.isArray(v.marks) &&
    Array.isArray(v.failures) &&
    Array.isArray(v.checkpoints) &&
    Array.isArray(v.trends)
  );
}

/** One sentence for screen readers and for the text beside the picture. */
export function describeTimeline(chart: TimelineChart): string {
  const lanes = chart.lanes.map((lane) => {
    const count = chart.marks.filter((m) => m.lane === lane.id).length;
    return `${lane.label}${lane.writer ? " (the writer)" : ""}: ${count} ${count === 1 ? "commit" : "commits"}`;
  });
  const parts = [`Commits to ${chart.table}. ${lanes.join("; ") || "No commits"}.`];
  if (chart.failures.length > 0)
    parts.push(`${chart.failures.length} failed ${chart.failures.length === 1 ? "commit" : "commits"}.`);
  if (chart.change) parts.push(`Change: ${chart.change.label}.`);
  if (chart.recovery) parts.push(`${chart.recovery.label}.`);
  return parts.join(" ");
}
