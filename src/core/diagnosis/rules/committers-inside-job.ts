// Several committers inside one Flink job race each other for the table (RUNBOOK §3
// committers-inside-job): the job commits several times per checkpoint (two committer operators,
// or one per subtask), or its subtasks commit on their own without any writer id, in bursts that
// follow the job's checkpoints. One committer per job is the fix (one-committer-per-table).

import type { Snapshot } from "../../evidence/model.js";
import type { EvidenceItem } from "../../report/schema.js";
import { formatDuration } from "../../words/duration.js";
import type { DiagnosisContext } from "../context.js";
import { describeWriter, snapshotListItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { committerOf, lowerBound } from "../snapshots.js";

const CHECKPOINT = "flink.max-committed-checkpoint-id";
/** How many of the writer's newest snapshots are grouped by checkpoint id. */
const PER_CHECKPOINT_SAMPLE = 60;
/** Checkpoints committed more than once before it counts as a pattern, not one re-commit. */
const REPEATED_CHECKPOINTS = 2;
/** Bursts of unattributed commits needed, each of at least BURST_SIZE snapshots. */
const BURSTS_NEEDED = 3;
const BURST_SIZE = 2;
/** Burst starts may drift this share of the checkpoint interval and still follow it. */
const ALIGN_TOLERANCE = 0.25;
const LOOK_BACK_INTERVALS = 24;

export interface InsideJobReading {
  kind: "per-checkpoint" | "anonymous-bursts";
  summary: string;
  evidence: EvidenceItem[];
}

function perCheckpoint(ctx: DiagnosisContext, jobId: string): InsideJobReading | null {
  const byCheckpoint = new Map<string, Snapshot[]>();
  let seen = 0;
  for (let i = ctx.snapshots.length - 1; i >= 0 && seen < PER_CHECKPOINT_SAMPLE; i--) {
    const s = ctx.snapshots[i]!;
    if (s.summary["flink.job-id"] !== jobId) continue;
    seen++;
    const id = s.summary[CHECKPOINT];
    if (id === undefined) continue;
    byCheckpoint.set(id, [...(byCheckpoint.get(id) ?? []), s]);
  }
  const repeated = [...byCheckpoint.entries()].filter(([, list]) => list.length > 1);
  if (repeated.length < REPEATED_CHECKPOINTS) return null;
  const examples = repeated.slice(0, 3).flatMap(([, list]) => list);
  const commits = repeated.reduce((n, [, list]) => n + list.length, 0);
  return {
    kind: "per-checkpoint",
    summary: `${describeWriter(ctx)} commits several times per checkpoint (${repeated.length} of its last ${byCheckpoint.size} checkpoints committed ${commits} times): more than one committer inside the job`,
    evidence: [
      {
        source: "catalog",
        detail: `Checkpoints committed more than once by job ${jobId}: ${repeated
          .slice(0, 5)
          .map(([id, list]) => `${id} (${list.length}×)`)
          .join(", ")}`,
        data: {
          jobId,
          checkpoints: repeated.slice(0, 5).map(([id, list]) => ({ checkpointId: id, commits: list.length })),
          repeatedCheckpoints: repeated.length,
        },
      },
      snapshotListItem("Snapshots sharing a checkpoint id", examples, commits),
    ],
  };
}

function anonymousBursts(ctx: DiagnosisContext, intervalMs: number): InsideJobReading | null {
  const from = lowerBound(ctx.snapshots, ctx.now - LOOK_BACK_INTERVALS * intervalMs);
  const anonymous: Snapshot[] = [];
  for (let i = from; i < ctx.snapshots.length; i++) {
    const s = ctx.snapshots[i]!;
    if (committerOf(s).kind === "anonymous") anonymous.push(s);
  }
  const gapWithin = Math.max(5_000, intervalMs / 20);
  const bursts: Snapshot[][] = [];
  for (const s of anonymous) {
    const current = bursts[bursts.length - 1];
    const last = current?.[current.length - 1];
    if (current && last && s.timestampMs - last.timestampMs <= gapWithin) current.push(s);
    else bursts.push([s]);
  }
  const real = bursts.filter((b) => b.length >= BURST_SIZE);
  if (real.length < BURSTS_NEEDED) return null;
  // Aligned with the checkpoints: consecutive bursts are whole checkpoint intervals apart.
  const starts = real.map((b) => b[0]!.timestampMs);
  let aligned = 0;
  for (let i = 1; i < starts.length; i++) {
    const ratio = (starts[i]! - starts[i - 1]!) / intervalMs;
    if (Math.round(ratio) >= 1 && Math.abs(ratio - Math.round(ratio)) <= ALIGN_TOLERANCE) aligned++;
  }
  if (aligned < (starts.length - 1) * 0.75) return null;
  const sizes = real.map((b) => b.length);
  const listed = real.slice(-2).flat();
  return {
    kind: "anonymous-bursts",
    summary: `Commits with no writer id land in ${real.length} bursts of ${Math.min(...sizes)}–${Math.max(...sizes)} snapshots, one burst per checkpoint of ${describeWriter(ctx)} (every ${formatDuration(intervalMs)}): its subtasks commit on their own`,
    evidence: [
      {
        source: "catalog",
        detail: `${real.length} bursts of unattributed snapshots (no flink.job-id), ${aligned} of ${starts.length - 1} gaps between them a whole checkpoint interval (${formatDuration(intervalMs)})`,
        data: { bursts: real.length, burstSizes: sizes.slice(-10), alignedGaps: aligned, intervalMs },
      },
      snapshotListItem("Newest bursts", listed, listed.length),
    ],
  };
}

/** The reading behind committers-inside-job for the Flink writer, or null. */
export function readCommittersInsideJob(ctx: DiagnosisContext): InsideJobReading | null {
  if (!ctx.table || ctx.writer?.kind !== "flink") return null;
  const per = perCheckpoint(ctx, ctx.writer.jobId);
  if (per) return per;
  const interval = ctx.job?.checkpointConfig?.intervalMs;
  return interval && interval > 0 ? anonymousBursts(ctx, interval) : null;
}

export const committersInsideJob: DiagnosisRule = {
  id: "committers-inside-job",
  evaluate(ctx) {
    const reading = ctx.insideJob;
    if (!reading || !ctx.troubled) return null;
    return finding("committers-inside-job", "critical", reading.summary, reading.evidence);
  },
};
