// Attribution by timing, for snapshots that carry no writer id: a Flink committer commits right
// after each completed checkpoint, a Connect coordinator once per commit interval. A snapshot is
// tied to the writer when it lands within a tolerance after one of those moments, and only when
// most such snapshots do (one lucky landing proves nothing). Reports say "attributed by timing".

import type { FlinkJobEvidence, Snapshot } from "../evidence/model.js";
import { committerOf, withoutWriterId } from "./attribute.js";

/** How many intervals back timing looks. */
export const TIMING_LOOKBACK_INTERVALS = 24;
/** Distinct checkpoints (or commit slots) that must explain a commit before timing ties anything. */
const MIN_ANCHORS = 3;
/** Share of the id-less snapshots in the look-back the anchors must explain. */
const MIN_SHARE = 0.75;

interface TimingTie {
  snapshot: Snapshot;
  /** The completed checkpoint (or commit slot) it follows. */
  anchorMs: number;
  delayMs: number;
}

export interface TimingReading {
  basis: "flink-checkpoints" | "connect-commit-interval";
  intervalMs: number;
  toleranceMs: number;
  /** Oldest first. */
  ties: TimingTie[];
  /** Checkpoints (or commit slots) followed by at least one tied commit. */
  anchors: number;
  /** The most commits tied to one checkpoint, and how many checkpoints have more than one. */
  maxPerAnchor: number;
  multiAnchors: number;
  /** Id-less snapshots in the look-back that no checkpoint explains. */
  untied: number;
  /** The checkpoint history came from Flink (true) or was extended at the interval (false). */
  fromHistory: boolean;
}

/** Within this long after a checkpoint a commit still follows it: a tenth of the interval, 15 s to 1 min, at most half. */
function timingTolerance(intervalMs: number): number {
  return Math.min(intervalMs / 2, Math.max(15_000, Math.min(60_000, intervalMs / 10)));
}

/** Snapshots a timing tie may claim: no writer id, and no engine other than the writer's. */
function claimable(snapshot: Snapshot, engine: string): boolean {
  const identity = committerOf(snapshot);
  if (!withoutWriterId(identity)) return false;
  return (
    identity.kind === "anonymous" || (identity.kind === "engine" && identity.name.toLowerCase() === engine)
  );
}

/** Completed checkpoint times, oldest first, extended back at the interval to the look-back start. */
function checkpointMoments(job: FlinkJobEvidence, intervalMs: number, fromMs: number): number[] {
  const done = new Set<number>();
  const cps = job.checkpoints;
  for (const c of [...(cps?.history ?? []), ...(cps?.latestCompleted ? [cps.latestCompleted] : [])]) {
    if (c.status !== "COMPLETED") continue;
    done.add(c.latestAckTimestampMs ?? c.triggerTimestampMs + (c.endToEndDurationMs ?? 0));
  }
  const moments = [...done].sort((a, b) => a - b);
  if (moments.length === 0) return moments;
  const floor = Math.max(fromMs, job.job.startTimeMs);
  const extended: number[] = [];
  for (let t = moments[0]! - intervalMs; t >= floor; t -= intervalMs) extended.push(t);
  return [...extended.reverse(), ...moments];
}

function tie(
  snapshots: readonly Snapshot[],
  moments: readonly number[],
  fromMs: number,
  toleranceMs: number,
  engine: string,
): { ties: TimingTie[]; untied: number } {
  const ties: TimingTie[] = [];
  let untied = 0;
  let m = 0;
  for (const s of snapshots) {
    if (s.timestampMs <= fromMs || !claimable(s, engine)) continue;
    while (m + 1 < moments.length && moments[m + 1]! <= s.timestampMs) m++;
    const anchor = moments[m];
    const delay = anchor === undefined ? -1 : s.timestampMs - anchor;
    if (anchor !== undefined && delay >= 0 && delay <= toleranceMs)
      ties.push({ snapshot: s, anchorMs: anchor, delayMs: delay });
    else untied++;
  }
  return { ties, untied };
}

function reading(
  basis: TimingReading["basis"],
  intervalMs: number,
  toleranceMs: number,
  found: { ties: TimingTie[]; untied: number },
  fromHistory: boolean,
): TimingReading | null {
  const perAnchor = new Map<number, number>();
  for (const t of found.ties) perAnchor.set(t.anchorMs, (perAnchor.get(t.anchorMs) ?? 0) + 1);
  if (perAnchor.size < MIN_ANCHORS) return null;
  if (found.ties.length < MIN_SHARE * (found.ties.length + found.untied)) return null;
  const counts = [...perAnchor.values()];
  return {
    basis,
    intervalMs,
    toleranceMs,
    ties: found.ties,
    anchors: perAnchor.size,
    maxPerAnchor: Math.max(...counts),
    multiAnchors: counts.filter((n) => n > 1).length,
    untied: found.untied,
    fromHistory,
  };
}

/** Id-less snapshots tied to a Flink job by its completed checkpoints; null when timing shows nothing. */
export function tieToFlinkCheckpoints(
  snapshots: readonly Snapshot[],
  job: FlinkJobEvidence,
  now: number,
): TimingReading | null {
  const intervalMs = job.checkpointConfig?.intervalMs;
  if (!intervalMs || intervalMs <= 0) return null;
  const fromMs = now - TIMING_LOOKBACK_INTERVALS * intervalMs;
  const moments = checkpointMoments(job, intervalMs, fromMs);
  if (moments.length === 0) return null;
  const toleranceMs = timingTolerance(intervalMs);
  const found = tie(snapshots, moments, fromMs, toleranceMs, "flink");
  return reading(
    "flink-checkpoints",
    intervalMs,
    toleranceMs,
    found,
    (job.checkpoints?.history.length ?? 0) > 0,
  );
}

/**
 * Id-less snapshots tied to a connector by its commit interval: they follow one another a whole
 * number of intervals apart, each within the tolerance of the slot the previous one set.
 */
export function tieToCommitInterval(
  snapshots: readonly Snapshot[],
  intervalMs: number,
  now: number,
): TimingReading | null {
  if (intervalMs <= 0) return null;
  const fromMs = now - TIMING_LOOKBACK_INTERVALS * intervalMs;
  const toleranceMs = timingTolerance(intervalMs);
  const candidates = snapshots.filter((s) => s.timestampMs > fromMs && claimable(s, "kafka-connect"));
  const ties: TimingTie[] = [];
  let untied = 0;
  let previous: Snapshot | undefined;
  for (const s of candidates) {
    const gap = previous ? s.timestampMs - previous.timestampMs : -1;
    const slots = Math.round(gap / intervalMs);
    const drift = Math.abs(gap - slots * intervalMs);
    if (previous && slots >= 1 && drift <= toleranceMs) {
      if (ties.length === 0) ties.push({ snapshot: previous, anchorMs: previous.timestampMs, delayMs: 0 });
      ties.push({ snapshot: s, anchorMs: s.timestampMs - drift, delayMs: drift });
    } else if (previous) untied++;
    previous = s;
  }
  return reading("connect-commit-interval", intervalMs, toleranceMs, { ties, untied }, false);
}
