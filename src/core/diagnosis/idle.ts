// Quiet by design (RUNBOOK §3 writer-idle): a writer whose silence fits its own history is not
// failing. Two readings, both only when no failure is visible and the writer's job or connector runs:
//   quiet hours   on each of the earlier days the history covers (at least two of the last three),
//                 the writer was just as quiet over the same hours; it is expected back at the time
//                 it resumed yesterday;
//   idle input    the job's sources emit nothing (Flink numRecordsOutPerSecond 0) and the committer
//                 skips empty checkpoints for flink.max-continuous-empty-commits (default 10) of
//                 them, or the connector's consumer lag is 0: no data, so no commit.
// Also here: what shows that snapshots were expired, so no text claims expiry without it.

import type {
  ConnectEvidence,
  Evidence,
  FlinkJobEvidence,
  Snapshot,
  TableEvidence,
} from "../evidence/model.js";
import type { EvidenceItem } from "../report/schema.js";
import { formatDuration } from "../words/duration.js";
import { iso, lowerBound, upperBound } from "./snapshots.js";
import { connectorRunning, latestCheckpointFailed, staleAfter } from "./writer.js";

const DAY_MS = 86_400_000;
const QUIET_DAYS_CHECKED = 3;
const QUIET_DAYS_NEEDED = 2;
const EMPTY_COMMITS_KEY = "flink.max-continuous-empty-commits";
/** Iceberg's default: the Flink committer commits an empty snapshot every 10 empty checkpoints. */
const EMPTY_COMMITS_DEFAULT = 10;
/** Lag samples that must all be 0 for a Connect sink's input to count as idle. */
const LAG_SAMPLES = 3;

export interface IdleReading {
  reason: "quiet-hours" | "input-idle";
  /** When the writer's next commit is expected; absent when only new input will bring one. */
  expectedBackMs?: number;
  /** Why the silence is expected, short enough for the verdict's own line. */
  because: string;
  summary: string;
  evidence: EvidenceItem[];
}

export interface ExpiryEvidence {
  /** Snapshot ids the snapshot log or a parent pointer names that the table no longer holds. */
  expiredIds: string[];
}

interface IdleInput {
  evidence: Evidence;
  now: number;
  snapshots: readonly Snapshot[];
  isWriter: (s: Snapshot) => boolean;
  writerNewest: Snapshot;
  intervalMs: number;
  job?: FlinkJobEvidence;
  connect?: ConnectEvidence;
}

function writerRunning(input: IdleInput): boolean {
  if (input.job) {
    if (input.job.job.state !== "RUNNING") return false;
    if (latestCheckpointFailed(input.job.checkpoints)) return false;
    const completed = input.job.checkpoints?.latestCompleted;
    if (completed) {
      const at = completed.latestAckTimestampMs ?? completed.triggerTimestampMs;
      if (input.now - at > staleAfter(input.intervalMs)) return false;
    }
  }
  if (input.connect && !connectorRunning(input.connect.connector)) return false;
  return input.job !== undefined || input.connect !== undefined;
}

function anyWriterIn(input: IdleInput, fromMs: number, toMs: number): Snapshot | undefined {
  for (let i = upperBound(input.snapshots, fromMs); i < input.snapshots.length; i++) {
    const s = input.snapshots[i]!;
    if (s.timestampMs > toMs) return undefined;
    if (input.isWriter(s)) return s;
  }
  return undefined;
}

function quietHours(input: IdleInput): IdleReading | null {
  const last = input.writerNewest.timestampMs;
  const quietFor = input.now - last;
  if (quietFor >= DAY_MS) return null;
  const oldest = input.snapshots.find(input.isWriter);
  if (!oldest) return null;
  // A commit or two of jitter around the start of the quiet hours does not break the pattern.
  const slack = 2 * input.intervalMs;
  let covered = 0;
  let back: Snapshot | undefined;
  for (let k = 1; k <= QUIET_DAYS_CHECKED; k++) {
    const from = last - k * DAY_MS;
    if (oldest.timestampMs > from) break;
    covered++;
    if (anyWriterIn(input, from + slack, input.now - k * DAY_MS)) return null;
    if (k === 1) {
      // When it came back yesterday: the first writer snapshot after this time of day.
      const i = lowerBound(input.snapshots, input.now - DAY_MS);
      for (let j = i; j < input.snapshots.length && !back; j++) {
        const s = input.snapshots[j]!;
        if (s.timestampMs > last) break;
        if (input.isWriter(s)) back = s;
      }
    }
  }
  if (covered < QUIET_DAYS_NEEDED) return null;
  const expectedBackMs = back ? back.timestampMs + DAY_MS : undefined;
  return {
    reason: "quiet-hours",
    ...(expectedBackMs !== undefined ? { expectedBackMs } : {}),
    because: `it was quiet at this time on each of the last ${covered} days`,
    summary: `quiet for ${formatDuration(quietFor)}, as it was at this time on each of the last ${covered} days${expectedBackMs !== undefined ? `; commits are expected again around ${iso(expectedBackMs)}` : ""}`,
    evidence: [
      {
        source: "catalog",
        detail: `No writer snapshot over the same hours on each of the last ${covered} days (quiet from ${iso(last)} to now, ${formatDuration(quietFor)})`,
        data: { quietSince: iso(last), daysChecked: covered, reason: "quiet-hours" },
      },
      ...(back
        ? [
            {
              source: "catalog" as const,
              detail: `Yesterday it resumed with snapshot ${back.snapshotId} at ${iso(back.timestampMs)}`,
              data: { snapshotId: back.snapshotId, resumedAt: iso(back.timestampMs) },
            },
          ]
        : []),
    ],
  };
}

function inputIdle(input: IdleInput): IdleReading | null {
  const quietFor = input.now - input.writerNewest.timestampMs;
  if (input.job) {
    if (input.job.sourceRecordsPerSecond !== 0) return null;
    const raw = input.evidence.catalog?.properties[EMPTY_COMMITS_KEY];
    const n = raw === undefined ? Number.NaN : Number(raw);
    const every = Number.isFinite(n) && n > 0 ? n : EMPTY_COMMITS_DEFAULT;
    const idleInterval = every * input.intervalMs;
    // Silence counts as failure only once it is stale against the idle interval.
    if (quietFor > staleAfter(idleInterval)) return null;
    const off = idleInterval >= DAY_MS;
    return {
      reason: "input-idle",
      ...(off ? {} : { expectedBackMs: input.writerNewest.timestampMs + idleInterval }),
      because: "its input brings no records",
      summary: off
        ? `quiet for ${formatDuration(quietFor)} because its input is idle and empty commits are switched off; commits resume when records arrive`
        : `quiet for ${formatDuration(quietFor)} because its input is idle; it commits an empty snapshot every ${every} checkpoints, next around ${iso(input.writerNewest.timestampMs + idleInterval)}`,
      evidence: [
        {
          source: "flink",
          detail: `The job's sources emit 0 records per second (numRecordsOutPerSecond)`,
          data: { jobId: input.job.job.jobId, sourceRecordsPerSecond: 0 },
        },
        {
          source: "catalog",
          detail: `${EMPTY_COMMITS_KEY} = ${raw ?? `${EMPTY_COMMITS_DEFAULT} (default)`}: an idle writer commits only every ${every} checkpoints (${formatDuration(idleInterval)})`,
          data: { key: EMPTY_COMMITS_KEY, value: raw ?? null, effective: every },
        },
      ],
    };
  }
  if (input.connect) {
    const lag = input.evidence.prometheus?.series.connectSinkLag;
    if (input.evidence.sources.prometheus?.status !== "ok" || !lag || lag.length < LAG_SAMPLES) return null;
    const recent = lag.slice(-LAG_SAMPLES);
    if (recent.some((p) => p.value !== 0)) return null;
    return {
      reason: "input-idle",
      because: "its topics bring no records",
      summary: `quiet for ${formatDuration(quietFor)} because its topics bring no records (consumer lag 0); the coordinator skips empty commits, so commits resume when records arrive`,
      evidence: [
        {
          source: "prometheus",
          detail: `Consumer lag of connector ${input.connect.connector.name} is 0 over the last ${recent.length} samples (to ${iso(recent[recent.length - 1]!.atMs)})`,
          data: { connector: input.connect.connector.name, lag: recent.map((p) => p.value) },
        },
      ],
    };
  }
  return null;
}

/** When a quiet writer commits again, in words: the verdict says it so nobody waits for a page. */
export function idleNextCommit(reading: IdleReading): string {
  if (reading.expectedBackMs !== undefined)
    return `the next commit is due around ${iso(reading.expectedBackMs)}`;
  return reading.reason === "input-idle"
    ? "commits resume when records arrive"
    : "the earlier days do not show when it resumes";
}

/** Why the writer's silence is normal, or null when nothing in its own history explains it. */
export function readIdle(input: IdleInput): IdleReading | null {
  if (!writerRunning(input)) return null;
  return inputIdle(input) ?? quietHours(input);
}

/** Snapshot ids named by the snapshot log or a parent pointer that the table no longer holds. */
export function expiryEvidence(table: TableEvidence): ExpiryEvidence {
  const { snapshots, snapshotLog } = table;
  // The log and the snapshots usually run in the same order: walking them side by side leaves
  // only the ids it could not pair, and a set of every held id (100,000 hashed strings on long
  // histories) is built only when there are some.
  const unpaired: string[] = [];
  let next = 0;
  for (const entry of snapshotLog) {
    if (snapshots[next]?.snapshotId === entry.snapshotId) next++;
    else unpaired.push(entry.snapshotId);
  }
  const parent = snapshots[0]?.parentSnapshotId;
  if (unpaired.length === 0) {
    return { expiredIds: parent && !snapshots.some((s) => s.snapshotId === parent) ? [parent] : [] };
  }
  if (parent) unpaired.push(parent);
  const held = new Set(snapshots.map((s) => s.snapshotId));
  const gone = new Set<string>();
  for (const id of unpaired) if (!held.has(id)) gone.add(id);
  return { expiredIds: [...gone].slice(0, 50) };
}
