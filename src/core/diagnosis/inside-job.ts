// Several committers inside one Flink job (RUNBOOK §3 committers-inside-job), read from the
// snapshots: the job commits the same checkpoint id more than once (two committer operators, or
// one per subtask), or commits with no writer id land in bursts that follow its checkpoints
// (subtasks committing on their own). A reading, not a finding: the rule words it.

import { committerOf, withoutWriterId } from "../attribution/attribute.js";
import type { TimingReading } from "../attribution/timing.js";
import type { FlinkJobEvidence, Snapshot } from "../evidence/model.js";
import { lowerBound } from "./snapshots.js";

/** How many of the writer's newest snapshots are grouped by checkpoint id. */
const PER_CHECKPOINT_SAMPLE = 60;
/** Checkpoints committed more than once before it counts as a pattern, not one re-commit. */
const REPEATED_CHECKPOINTS = 2;
/** Bursts of unattributed commits needed, each of at least BURST_SIZE snapshots. */
const BURSTS_NEEDED = 3;
const BURST_SIZE = 2;
/** Without a checkpoint history: burst starts may drift this share of the interval. */
const ALIGN_TOLERANCE = 0.25;
const LOOK_BACK_INTERVALS = 24;

export type InsideJobReading =
  | {
      kind: "per-checkpoint";
      jobId: string;
      /** Checkpoint ids committed more than once, newest first, with their snapshots. */
      repeated: Array<{ checkpointId: string; snapshots: Snapshot[] }>;
      checkpointsSeen: number;
    }
  | {
      kind: "anonymous-bursts";
      intervalMs: number;
      /** Oldest first. */
      bursts: Snapshot[][];
      /** Gaps between bursts that are whole checkpoint intervals, of `gaps`. */
      aligned: number;
      gaps: number;
      /** The bursts were matched to the job's completed checkpoints (attributed by timing). */
      toleranceMs?: number;
    };

function perCheckpoint(snapshots: readonly Snapshot[], jobId: string): InsideJobReading | null {
  const byCheckpoint = new Map<string, Snapshot[]>();
  let seen = 0;
  for (let i = snapshots.length - 1; i >= 0 && seen < PER_CHECKPOINT_SAMPLE; i--) {
    const identity = committerOf(snapshots[i]!);
    if (identity.kind !== "flink" || identity.jobId !== jobId) continue;
    seen++;
    if (identity.checkpointId === undefined) continue;
    byCheckpoint.set(identity.checkpointId, [
      ...(byCheckpoint.get(identity.checkpointId) ?? []),
      snapshots[i]!,
    ]);
  }
  const repeated = [...byCheckpoint.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([checkpointId, list]) => ({ checkpointId, snapshots: list }));
  if (repeated.length < REPEATED_CHECKPOINTS) return null;
  return { kind: "per-checkpoint", jobId, repeated, checkpointsSeen: byCheckpoint.size };
}

/** Bursts read from the commits timing tied to the job's checkpoints. */
function burstsByTiming(timing: TimingReading): InsideJobReading | null {
  if (timing.basis !== "flink-checkpoints" || timing.multiAnchors < BURSTS_NEEDED) return null;
  const byAnchor = new Map<number, Snapshot[]>();
  for (const t of timing.ties) byAnchor.set(t.anchorMs, [...(byAnchor.get(t.anchorMs) ?? []), t.snapshot]);
  const bursts = [...byAnchor.values()].filter((b) => b.length >= BURST_SIZE);
  return {
    kind: "anonymous-bursts",
    intervalMs: timing.intervalMs,
    bursts,
    aligned: bursts.length - 1,
    gaps: bursts.length - 1,
    toleranceMs: timing.toleranceMs,
  };
}

/** Without a checkpoint history: bursts of id-less commits whole checkpoint intervals apart. */
function burstsByInterval(
  snapshots: readonly Snapshot[],
  now: number,
  intervalMs: number,
): InsideJobReading | null {
  const from = lowerBound(snapshots, now - LOOK_BACK_INTERVALS * intervalMs);
  const gapWithin = Math.max(5_000, intervalMs / 20);
  const bursts: Snapshot[][] = [];
  for (let i = from; i < snapshots.length; i++) {
    const s = snapshots[i]!;
    if (!withoutWriterId(committerOf(s))) continue;
    const current = bursts[bursts.length - 1];
    const last = current?.[current.length - 1];
    if (current && last && s.timestampMs - last.timestampMs <= gapWithin) current.push(s);
    else bursts.push([s]);
  }
  const real = bursts.filter((b) => b.length >= BURST_SIZE);
  if (real.length < BURSTS_NEEDED) return null;
  const starts = real.map((b) => b[0]!.timestampMs);
  let aligned = 0;
  for (let i = 1; i < starts.length; i++) {
    const ratio = (starts[i]! - starts[i - 1]!) / intervalMs;
    if (Math.round(ratio) >= 1 && Math.abs(ratio - Math.round(ratio)) <= ALIGN_TOLERANCE) aligned++;
  }
  if (aligned < (starts.length - 1) * 0.75) return null;
  return { kind: "anonymous-bursts", intervalMs, bursts: real, aligned, gaps: starts.length - 1 };
}

/** The reading behind committers-inside-job for a Flink writer, or null. */
export function readCommittersInsideJob(input: {
  snapshots: readonly Snapshot[];
  now: number;
  jobId: string;
  job?: FlinkJobEvidence;
  timing: TimingReading | null;
}): InsideJobReading | null {
  const per = perCheckpoint(input.snapshots, input.jobId);
  if (per) return per;
  if (input.timing) return burstsByTiming(input.timing);
  const interval = input.job?.checkpointConfig?.intervalMs;
  return interval && interval > 0 ? burstsByInterval(input.snapshots, input.now, interval) : null;
}
