// The commit timeline as data: who committed when, which commits failed, the diagnosis window,
// and (after a change) the change and the recovery. Pure: evidence and times in, a plain model out.
// The picture is drawn from this model by a separate spec builder and rasterised in an adapter,
// so tests read lanes and marks here without decoding pixels.

import { type CommitterIdentity, committerKey, committerOf } from "../attribution/attribute.js";
import { buildContext, type DiagnosisContext } from "../diagnosis/context.js";
import { perWriterEvidence, worstWriter } from "../diagnosis/diagnose.js";
import type { FailureKind } from "../diagnosis/failures.js";
import type { Evidence, MetricPoint } from "../evidence/model.js";
import type { SourceName } from "../ids.js";
import type { ReportWriter } from "../report/schema.js";
import { formatTableName } from "../table-name.js";
import { utcHourMinute } from "../words/clock.js";
import { SOURCE_WORDS } from "../words/labels.js";

export const CHART_OPERATIONS = ["append", "overwrite", "replace", "delete", "other"] as const;
export type ChartOperation = (typeof CHART_OPERATIONS)[number];

interface TimelineLane {
  id: string;
  label: string;
  kind: CommitterIdentity["kind"] | "merged";
  /** The writer the diagnosis is about. */
  writer: boolean;
}

interface TimelineMark {
  lane: string;
  atMs: number;
  operation: ChartOperation;
}

interface TimelineFailure {
  lane: string;
  atMs: number;
  kind: FailureKind;
}

interface TimelineCheckpoint {
  atMs: number;
  ok: boolean;
}

type Span = { fromMs: number; toMs: number };
/** A change or a recovery: a vertical line with its words. */
type Marker = { atMs: number; label: string };

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
  window?: Span;
  change?: Marker;
  recovery?: Marker;
  trends: TrendSeries[];
  /** Evidence sources that did not answer ("Flink REST"): the picture says what it cannot show. */
  silentSources?: string[];
}

export interface TimelineOptions {
  tableName?: string;
  /** A change applied to the table, drawn as a vertical line. */
  change?: Marker;
  /** When the writer committed again after the change. */
  recovery?: Marker;
  /** The window of the first diagnosis, kept on the picture after recovery. */
  window?: Span;
  /**
   * The writer the diagnosis named as failing. Without it the picture judges every candidate
   * writer as the diagnosis does and takes the one in the worst state, so a healthy twin is never
   * drawn as "the writer".
   */
  writer?: Pick<ReportWriter, "kind" | "id">;
}

/** At most this many committer lanes; the rest share one "other committers" lane. */
const MAX_LANES = 5;
/** History before the window, in expected commit intervals. */
const HISTORY_INTERVALS = 8;
/** The picture never spans more than a day, nor less than half an hour. */
const MAX_SPAN_MS = 24 * 3_600_000;
const MIN_SPAN_MS = 30 * 60_000;
const MERGED_LANE = "merged";

export function buildTimeline(evidence: Evidence, now: number, options: TimelineOptions = {}): TimelineChart {
  const contextOptions = options.tableName ? { tableName: options.tableName } : {};
  const ctx = buildContext(writerEvidence(evidence, now, options), now, contextOptions);
  const { fromMs, toMs } = span(ctx, now, options);
  const writerKey = writerLaneKey(ctx);

  // Count commits per committer inside the span to pick the lanes.
  const counts = new Map<string, { identity: CommitterIdentity; count: number }>();
  const inSpan = ctx.snapshots.filter((s) => s.timestampMs >= fromMs && s.timestampMs <= toMs);
  // The writer's commits share its lane, those tied to it by timing too.
  const tied = new Set(ctx.timing?.ties.map((t) => t.snapshot));
  const laneKey = (s: (typeof inSpan)[number]) =>
    writerKey && tied.has(s) ? writerKey : committerKey(committerOf(s));
  for (const s of inSpan) {
    const identity = committerOf(s);
    const key = laneKey(s);
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
  tellTwinsApart(lanes);
  const laneIds = new Set(lanes.map((l) => l.id));
  if (ordered.length > kept.length) {
    lanes.push({ id: MERGED_LANE, label: "other committers", kind: "merged", writer: false });
  }

  const marks: TimelineMark[] = inSpan.map((s) => {
    const key = laneKey(s);
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

  const silent = silentSources(evidence);
  // A healthy writer has no failure window to shade.
  const window =
    options.window ??
    (ctx.window && ctx.troubled ? { fromMs: ctx.window.startMs, toMs: ctx.window.endMs } : undefined);

  const shaded = window ? clampWindow(window, fromMs, toMs) : undefined;
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
    ...(shaded ? { window: shaded } : {}),
    ...(options.change ? { change: options.change } : {}),
    ...(options.recovery ? { recovery: options.recovery } : {}),
    trends: trends(ctx, fromMs, toMs),
    ...(silent.length > 0 ? { silentSources: silent } : {}),
  };
}

function silentSources(evidence: Evidence): string[] {
  return Object.entries(evidence.sources)
    .filter(([, s]) => s?.status === "unavailable")
    .map(([name]) => SOURCE_WORDS[name as SourceName] ?? name);
}

/** The evidence with the failing writer as Flink's (or Connect's) writer: named, else the worst off. */
function writerEvidence(evidence: Evidence, now: number, options: TimelineOptions): Evidence {
  const named = options.writer;
  if (named) {
    const variant = perWriterEvidence(evidence).find((v) =>
      named.kind === "flink"
        ? v.flink?.writer?.job.jobId === named.id
        : v.connect?.connector.name === named.id && !v.flink?.writer,
    );
    if (variant) return variant;
  }
  return worstWriter(evidence, now, options.tableName ? { tableName: options.tableName } : {}).evidence;
}

/** Two committers under one name (two jobs both called events-ingest) get their short ids. */
function tellTwinsApart(lanes: TimelineLane[]): void {
  const byLabel = new Map<string, TimelineLane[]>();
  for (const lane of lanes) byLabel.set(lane.label, [...(byLabel.get(lane.label) ?? []), lane]);
  for (const twins of byLabel.values()) {
    if (twins.length < 2) continue;
    for (const lane of twins) lane.label = `${lane.label} (${shortId(lane.id)})`;
  }
}

/** "c7e1…": the first four characters of the committer's id, as the card names the job. */
function shortId(laneId: string): string {
  const id = laneId.slice(laneId.indexOf(":") + 1);
  return `${id.slice(0, 4)}…`;
}

function span(ctx: DiagnosisContext, now: number, options: TimelineOptions): Span {
  const interval = ctx.intervalMs;
  // A little room after the last thing drawn, so the newest marks do not sit on the frame.
  const pad = Math.max(interval / 2, 60_000);
  if (options.change && options.recovery)
    return afterChangeSpan(interval, pad, options.change.atMs, options.recovery.atMs, options.window);
  const anchor = options.window?.fromMs ?? ctx.window?.startMs ?? ctx.writerNewest?.timestampMs ?? now;
  let fromMs = anchor - HISTORY_INTERVALS * interval;
  const last = Math.max(now, options.recovery?.atMs ?? 0, options.change?.atMs ?? 0);
  const toMs = last + pad;
  if (toMs - fromMs > MAX_SPAN_MS) fromMs = toMs - MAX_SPAN_MS;
  if (toMs - fromMs < MIN_SPAN_MS) fromMs = toMs - MIN_SPAN_MS;
  return { fromMs, toMs };
}

/** The change and the recovery take at least this share of the after-change picture. */
export const AFTER_CHANGE_SHARE = 0.2;
/** ...unless they are so close that a quarter of an hour already shows them apart. */
const AFTER_CHANGE_MIN_SPAN_MS = 15 * 60_000;

/**
 * After a change the picture ends at the recovery and starts at the writer's last good commit
 * (or the failure), zoomed in so the change and the recovery are apart: a day of history would
 * draw them as one line.
 */
function afterChangeSpan(
  interval: number,
  pad: number,
  changeMs: number,
  recoveryMs: number,
  window: Span | undefined,
): Span {
  const toMs = Math.max(recoveryMs, changeMs) + pad;
  const gap = Math.abs(recoveryMs - changeMs);
  const start = Math.min(window?.fromMs ?? changeMs, changeMs) - 2 * interval;
  let fromMs = Math.max(start, toMs - Math.max(gap / AFTER_CHANGE_SHARE, AFTER_CHANGE_MIN_SPAN_MS));
  fromMs = Math.min(fromMs, changeMs - pad);
  if (toMs - fromMs > MAX_SPAN_MS) fromMs = toMs - MAX_SPAN_MS;
  return { fromMs, toMs };
}

function clampWindow(window: Span, fromMs: number, toMs: number): Span | undefined {
  if (Math.max(window.toMs, window.fromMs) < fromMs || window.fromMs > toMs) return undefined;
  return {
    fromMs: Math.max(fromMs, window.fromMs),
    toMs: Math.min(toMs, Math.max(window.toMs, window.fromMs)),
  };
}

/** The writer as a committer, from the diagnosis alone. */
function writerIdentity(writer: NonNullable<DiagnosisContext["writer"]>): CommitterIdentity {
  return writer.kind === "flink"
    ? { kind: "flink", jobId: writer.jobId }
    : { kind: "connect", connector: writer.connector };
}

function writerLaneKey(ctx: DiagnosisContext): string | undefined {
  const writer = ctx.writer;
  if (!writer) return undefined;
  // Snapshots name the connector through the task id; older sinks only mark Connect commits.
  const named =
    writer.kind === "connect"
      ? ctx.snapshots.findLast((s) => ctx.isWriter(s) && committerOf(s).kind === "connect")
      : undefined;
  return committerKey(named ? committerOf(named) : writerIdentity(writer));
}

function writerLane(
  ctx: DiagnosisContext,
  key: string,
  identity: CommitterIdentity | undefined,
): TimelineLane {
  const writer = ctx.writer!;
  // A lane of commits tied by timing carries no identity of its own: it is the writer's.
  const id = identity && identity.kind === writer.kind ? identity : writerIdentity(writer);
  return { id: key, label: laneLabel(id, ctx.evidence), kind: id.kind, writer: true };
}

const MAX_LABEL = 20;
/** A free-form committer label (an engine's own words) is kept whole up to this length. */
const MAX_OTHER_LABEL = 40;

/** Long ids keep their head and tail: "application_17…0000_0587". */
function shorten(text: string, max = MAX_LABEL): string {
  if (text.length <= max) return text;
  const tail = Math.floor((max - 1) / 2);
  const head = max - 1 - tail;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

function laneLabel(identity: CommitterIdentity, evidence: Evidence): string {
  switch (identity.kind) {
    case "flink": {
      const name = evidence.flink?.jobs.find((j) => j.jobId === identity.jobId)?.name;
      // Whole names: the picture wraps them at spaces rather than cutting a word.
      return name ? `Flink ${name}` : `Flink job ${identity.jobId.slice(0, 8)}…`;
    }
    case "spark":
      // YARN ids share a long prefix; the cluster stamp and sequence tell them apart.
      return identity.streamingQueryId && identity.appId === identity.streamingQueryId
        ? `Spark streaming ${identity.streamingQueryId.slice(0, 8)}…`
        : `Spark …${identity.appId.slice(-9)}`;
    case "connect":
      return identity.connector ? `Connect ${identity.connector}` : "Kafka Connect";
    case "trino":
      // One lane for all of Trino's queries (committerKey), each commit its own query.
      return "Trino";
    case "engine":
      return shorten(`${identity.name} (no writer id)`, MAX_OTHER_LABEL);
    case "other":
      return shorten(identity.label, MAX_OTHER_LABEL);
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

type TrendMeta = { label: string; unit: TrendSeries["unit"]; scale: number; seconds?: number };
/** The series drawn, in this order. scale: to the unit drawn; seconds: to seconds, for the durations. */
const TREND_META = {
  lastCommitDurationMs: { label: "commit duration", unit: "s", scale: 1 / 1000, seconds: 1 / 1000 },
  elapsedSecondsSinceLastSuccessfulCommit: {
    label: "time since last commit",
    unit: "min",
    scale: 1 / 60,
    seconds: 1,
  },
  committedDataFilesPerCommit: { label: "files per commit", unit: "files", scale: 1 },
  lastCheckpointDuration: { label: "checkpoint duration", unit: "s", scale: 1 / 1000, seconds: 1 / 1000 },
  connectSinkLag: { label: "sink lag (records)", unit: "records", scale: 1 },
} satisfies Record<string, TrendMeta>;
type TrendId = keyof typeof TREND_META;
const TREND_IDS = Object.keys(TREND_META) as TrendId[];

/** No duration drawn is negative or longer than this: such a point is a broken exporter, not a trend. */
const MAX_DURATION_S = 24 * 3600;

function trends(ctx: DiagnosisContext, fromMs: number, toMs: number): TrendSeries[] {
  const evidence = ctx.evidence;
  if (evidence.sources.prometheus?.status !== "ok") return [];
  const out: TrendSeries[] = [];
  for (const id of TREND_IDS) {
    const points = evidence.prometheus?.series[id];
    if (!points || points.length < 2) continue;
    const meta = TREND_META[id];
    const inSpan = sanitise(ctx, id, points)
      .filter((p) => p.atMs >= fromMs && p.atMs <= toMs)
      .map((p) => ({ atMs: p.atMs, value: Number((p.value * meta.scale).toPrecision(6)) }));
    if (inSpan.length >= 2) out.push({ id, label: meta.label, unit: meta.unit, points: inSpan });
  }
  return out;
}

/**
 * Points a person could misread are left out: not a number, a negative count or duration, a
 * duration over a day, and a "time since last commit" the snapshots contradict (the gauge of a
 * job that stopped exporting stays flat while the writer commits again).
 */
function sanitise(ctx: DiagnosisContext, id: TrendId, points: readonly MetricPoint[]): MetricPoint[] {
  const writerCommits = ctx.snapshots.filter((s) => ctx.isWriter(s)).map((s) => s.timestampMs);
  const slackMs = 2 * ctx.intervalMs;
  return points.filter((p) => {
    if (!Number.isFinite(p.value) || p.value < 0) return false;
    const { seconds: scale }: TrendMeta = TREND_META[id];
    if (scale !== undefined && p.value * scale > MAX_DURATION_S) return false;
    if (id !== "elapsedSecondsSinceLastSuccessfulCommit" || writerCommits.length === 0) return true;
    const last = writerCommits.findLast((at) => at <= p.atMs);
    return last === undefined || p.value * 1000 <= p.atMs - last + slackMs;
  });
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

const commits = (n: number) => `${n} ${n === 1 ? "commit" : "commits"}`;

/**
 * What the picture shows, as sentences with times, for screen readers and the text beside it:
 * the span, the failing writer's last commit and failures, the other committers, the sources that
 * did not answer, the change and the recovery.
 */
export function describeTimeline(chart: TimelineChart): string {
  const parts = [
    `Commits to ${chart.table} from ${utcHourMinute(chart.fromMs)} to ${utcHourMinute(chart.toMs)} UTC.`,
  ];
  const writer = chart.lanes.find((l) => l.writer);
  if (writer) {
    const own = chart.marks.filter((m) => m.lane === writer.id).map((m) => m.atMs);
    const failures = chart.failures.filter((f) => f.lane === writer.id).map((f) => f.atMs);
    const beforeTrouble = own.filter((at) => at <= (failures[0] ?? chart.change?.atMs ?? Infinity));
    const last = beforeTrouble.at(-1);
    const lastPart =
      last === undefined ? "made no commit in this span" : `last committed at ${utcHourMinute(last)}`;
    const failed =
      failures.length === 0
        ? ""
        : `, then ${failures.length} failed ${failures.length === 1 ? "commit" : "commits"} (${listTimes(failures)})`;
    parts.push(`The writer, ${writer.label}, ${lastPart}${failed}.`);
  }
  const others = chart.lanes
    .filter((l) => !l.writer)
    .map((lane) => `${lane.label}: ${commits(chart.marks.filter((m) => m.lane === lane.id).length)}`);
  if (others.length > 0) parts.push(`Other committers: ${others.join("; ")}.`);
  if (!writer && others.length === 0) parts.push("No commits.");
  for (const source of chart.silentSources ?? [])
    parts.push(`${source} did not answer: its part is missing.`);
  if (chart.change) parts.push(`${capitalise(chart.change.label)} at ${utcHourMinute(chart.change.atMs)}.`);
  if (chart.recovery)
    parts.push(`${capitalise(chart.recovery.label)} at ${utcHourMinute(chart.recovery.atMs)}.`);
  return parts.join(" ");
}

function listTimes(times: number[]): string {
  if (times.length <= 3) return times.map(utcHourMinute).join(", ");
  return `${utcHourMinute(times[0]!)} to ${utcHourMinute(times.at(-1)!)}`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
