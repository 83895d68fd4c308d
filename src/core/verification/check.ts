// Did the change help? Recovery is judged on data, not on alerts: the same writer commits again
// after the change, its commit age is back in the normal range, and a Connect sink is running.

import type { Evidence, Snapshot } from "../evidence/model.js";
import type { VerifySignal } from "../playbook/schema.js";

export type WriterIdentity =
  | { kind: "flink"; jobId: string }
  | { kind: "connect"; connector: string }
  | { kind: "unknown" };

export interface RecoveryBaseline {
  /** When the change was applied (or marked done by hand). */
  changeAtMs: number;
  writer: WriterIdentity;
  /** The writer's normal commit interval; the Flink checkpoint interval when absent. */
  commitIntervalMs?: number;
  /** Signals to require; all that apply to the writer when absent. */
  signals?: readonly VerifySignal[];
}

export interface RecoveryResult {
  recovered: boolean;
  detail: string;
  firstNewSnapshot?: { id: string; timestampMs: number };
  elapsedSeconds?: number;
}

interface SignalOutcome {
  ok: boolean;
  text: string;
}

/** Recovery as the follow-up check sees it at `now`. */
export function evaluateRecovery(
  baseline: RecoveryBaseline,
  evidence: Evidence,
  now: number,
): RecoveryResult {
  const wanted = new Set<VerifySignal>(
    baseline.signals ?? ["writer-snapshots-resume", "elapsed-seconds-normal", "connector-running"],
  );
  const outcomes: SignalOutcome[] = [];
  const result: Omit<RecoveryResult, "recovered" | "detail"> = {};

  if (wanted.has("writer-snapshots-resume")) {
    const { outcome, first } = snapshotsResumed(baseline, evidence);
    outcomes.push(outcome);
    if (first) result.firstNewSnapshot = { id: first.snapshotId, timestampMs: first.timestampMs };
  }
  if (wanted.has("elapsed-seconds-normal")) {
    const elapsed = elapsedNormal(baseline, evidence);
    if (elapsed) {
      outcomes.push(elapsed.outcome);
      result.elapsedSeconds = elapsed.seconds;
    }
  }
  if (wanted.has("connector-running") && baseline.writer.kind === "connect") {
    outcomes.push(connectorRunning(baseline.writer.connector, evidence));
  }
  if (outcomes.length === 0) {
    return { recovered: false, detail: `no recovery signal could be read at ${clock(now)}` };
  }
  return {
    ...result,
    recovered: outcomes.every((o) => o.ok),
    detail: outcomes.map((o) => o.text).join("; "),
  };
}

/** Who writes the table, as the evidence shows it (configured or discovered writer). */
export function identifyWriter(evidence: Evidence): WriterIdentity {
  const jobId = evidence.flink?.writer?.job.jobId;
  if (jobId) return { kind: "flink", jobId };
  const connector = evidence.connect?.connector.name;
  if (connector) return { kind: "connect", connector };
  return { kind: "unknown" };
}

/** True when the snapshot was committed by this writer (by its summary keys). */
export function committedBy(snapshot: Snapshot, writer: WriterIdentity): boolean {
  switch (writer.kind) {
    case "flink":
      return snapshot.summary["flink.job-id"] === writer.jobId;
    case "connect": {
      // The sink writes "<connector>-<task number>"; a bare prefix test would also match "events-sink-v2-0".
      const task = snapshot.summary["kafka.connect.task-id"];
      if (task === undefined || !task.startsWith(`${writer.connector}-`)) return false;
      return /^\d+$/.test(task.slice(writer.connector.length + 1));
    }
    case "unknown":
      // Without an identity, any data commit that is not a compaction counts.
      return snapshot.operation !== "replace";
  }
}

function snapshotsResumed(
  baseline: RecoveryBaseline,
  evidence: Evidence,
): { outcome: SignalOutcome; first?: Snapshot } {
  if (!evidence.catalog) {
    const why = evidence.sources.catalog.error ?? evidence.sources.catalog.status;
    return { outcome: { ok: false, text: `cannot see the table's snapshots (catalog: ${why})` } };
  }
  const first = evidence.catalog.snapshots.find(
    (s) => s.timestampMs > baseline.changeAtMs && committedBy(s, baseline.writer),
  );
  const who = describe(baseline.writer);
  if (!first) {
    return {
      outcome: {
        ok: false,
        text: `no new snapshot from ${who} since the change at ${clock(baseline.changeAtMs)}`,
      },
    };
  }
  return {
    outcome: { ok: true, text: `snapshot ${first.snapshotId} from ${who} at ${clock(first.timestampMs)}` },
    first,
  };
}

function elapsedNormal(
  baseline: RecoveryBaseline,
  evidence: Evidence,
): { outcome: SignalOutcome; seconds: number } | undefined {
  const seconds = evidence.flink?.writer?.committer?.elapsedSecondsSinceLastSuccessfulCommit;
  if (seconds === undefined) return undefined;
  const intervalMs = baseline.commitIntervalMs ?? evidence.flink?.writer?.checkpointConfig?.intervalMs;
  if (intervalMs === undefined) return undefined;
  const limit = (2 * intervalMs) / 1000;
  const ok = seconds <= limit;
  return {
    seconds,
    outcome: {
      ok,
      text: `elapsedSecondsSinceLastSuccessfulCommit ${count(seconds)} s (normal up to ${count(limit)} s)`,
    },
  };
}

function connectorRunning(name: string, evidence: Evidence): SignalOutcome {
  const status = evidence.connect?.connector;
  if (!status || status.name !== name) {
    const why = evidence.sources.connect.error ?? evidence.sources.connect.status;
    return { ok: false, text: `cannot read connector ${name} (connect: ${why})` };
  }
  const running = status.tasks.filter((t) => t.state === "RUNNING").length;
  const ok = status.state === "RUNNING" && status.tasks.length > 0 && running === status.tasks.length;
  return {
    ok,
    text: `connector ${name} ${status.state}, ${running} of ${status.tasks.length} tasks RUNNING`,
  };
}

function describe(writer: WriterIdentity): string {
  switch (writer.kind) {
    case "flink":
      return `job ${writer.jobId.slice(0, 8)}…`;
    case "connect":
      return `connector ${writer.connector}`;
    case "unknown":
      return "the writer";
  }
}

function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}
