// Did the change help? Recovery is judged on data, not on alerts: the writer the diagnosis named
// as failing commits again after the change (its own job id, or a successor that replaced it),
// its commit age is back in the normal range, and a Connect sink is running. A twin job that never
// failed, a backfill or a compaction committing meanwhile is not a recovery (RUNBOOK §4).

import { committerOf, isConnectorCommit } from "../attribution/attribute.js";
import { LIVE_JOB_STATES } from "../diagnosis/context.js";
import type { Evidence, FlinkJobEvidence, Snapshot } from "../evidence/model.js";
import { groupDigits } from "../plural.js";
import type { VerifySignal } from "../remediation/schema.js";
import { utcTime } from "../words/clock.js";

export type WriterIdentity =
  | {
      kind: "flink";
      jobId: string;
      /** The job's name: a successor run of the same pipeline carries it too. */
      name?: string;
      /** The committer's operator id (`flink.operator-id`), kept across a restore from a savepoint. */
      operatorId?: string;
      /** When the writer failed: a successor must have started after it. */
      failedAtMs?: number;
    }
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

/**
 * What one follow-up check found: the writer recovered, not yet, or the check could not be made
 * (a source it needs did not answer). "Could not check" is never "no recovery": it says nothing
 * about the writer, only about what the bot could read.
 */
export type CheckOutcome = "recovered" | "not-yet" | "could-not-check";

/** A source a check needed and could not read, with its error. */
export interface Unseen {
  /** The source's name as the evidence knows it: "catalog", "flink", "connect". */
  source: string;
  reason: string;
}

/**
 * Whom the recovery is owed to. "fixed": the failing writer had not committed since its failure
 * when the change was made, and committed after it. "already-flowing": it was committing at its
 * normal pace before the change, so the change cannot take the credit.
 */
export type RecoveryCredit = "fixed" | "already-flowing";

export interface RecoveryResult {
  recovered: boolean;
  outcome: CheckOutcome;
  detail: string;
  /** What the check could not read; set when the outcome is "could-not-check". */
  unseen?: Unseen[];
  firstNewSnapshot?: { id: string; timestampMs: number };
  elapsedSeconds?: number;
  /** Set when recovered and the writer's commits before the change could be read. */
  credit?: RecoveryCredit;
}

interface SignalOutcome {
  ok: boolean;
  text: string;
  /** Set when the signal could not be read at all. */
  unseen?: Unseen;
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
  const result: Pick<RecoveryResult, "firstNewSnapshot" | "elapsedSeconds"> = {};

  const lineage = writerLineage(baseline.writer, evidence);
  if (wanted.has("writer-snapshots-resume")) {
    const { outcome, first } = snapshotsResumed(baseline, evidence, lineage);
    outcomes.push(outcome);
    if (first) result.firstNewSnapshot = { id: first.snapshotId, timestampMs: first.timestampMs };
  }
  if (wanted.has("elapsed-seconds-normal")) {
    const elapsed = elapsedNormal(baseline, evidence, lineage);
    if (elapsed) {
      outcomes.push(elapsed.outcome);
      result.elapsedSeconds = elapsed.seconds;
    }
  }
  if (wanted.has("connector-running") && baseline.writer.kind === "connect") {
    outcomes.push(connectorRunning(baseline.writer.connector, evidence));
  }
  if (outcomes.length === 0) {
    const reason = `no recovery signal could be read at ${utcTime(now)}`;
    return {
      recovered: false,
      outcome: "could-not-check",
      detail: reason,
      unseen: [{ source: "flink", reason }],
    };
  }
  const recovered = outcomes.every((o) => o.ok);
  const unseen = outcomes.flatMap((o) => (o.unseen ? [o.unseen] : []));
  const detail = outcomes.map((o) => o.text).join("; ");
  if (recovered) {
    const credit = creditFor(baseline, evidence, lineage);
    return { ...result, recovered, outcome: "recovered", detail, ...(credit ? { credit } : {}) };
  }
  if (unseen.length > 0) return { ...result, recovered, outcome: "could-not-check", detail, unseen };
  return { ...result, recovered, outcome: "not-yet", detail };
}

/** A check that could not read the table at all (the investigation itself failed). */
export function unreadableCheck(source: string, reason: string): RecoveryResult {
  return {
    recovered: false,
    outcome: "could-not-check",
    detail: `could not read the table (${reason})`,
    unseen: [{ source, reason }],
  };
}

/**
 * "already-flowing" when the failing writer (its lineage) committed after its failure and within
 * two commit intervals before the change; "fixed" otherwise. Without a failure time or a commit
 * interval only the other is used; without either the change gets the benefit of the doubt.
 */
function creditFor(
  baseline: RecoveryBaseline,
  evidence: Evidence,
  lineage: ReadonlySet<string>,
): RecoveryCredit | undefined {
  const snapshots = evidence.catalog?.snapshots;
  if (!snapshots) return undefined;
  // A failure time after the change (an estimate from the next commit due) says nothing of then.
  const failure = baseline.writer.kind === "flink" ? baseline.writer.failedAtMs : undefined;
  const failedAtMs = failure !== undefined && failure < baseline.changeAtMs ? failure : undefined;
  const intervalMs =
    baseline.commitIntervalMs ?? failingJob(baseline.writer, evidence, lineage)?.checkpointConfig?.intervalMs;
  if (failedAtMs === undefined && intervalMs === undefined) return "fixed";
  let last: Snapshot | undefined;
  for (const s of snapshots) {
    if (s.timestampMs >= baseline.changeAtMs || !committedBy(s, baseline.writer, lineage)) continue;
    if (!last || s.timestampMs > last.timestampMs) last = s;
  }
  if (!last) return "fixed";
  const afterFailure = failedAtMs === undefined || last.timestampMs > failedAtMs;
  const recent = intervalMs === undefined || baseline.changeAtMs - last.timestampMs <= 2 * intervalMs;
  return afterFailure && recent ? "already-flowing" : "fixed";
}

/** Who writes the table, as the evidence shows it (configured or discovered writer). */
export function identifyWriter(evidence: Evidence): WriterIdentity {
  const jobId = evidence.flink?.writer?.job.jobId;
  if (jobId) return { kind: "flink", jobId };
  const connector = evidence.connect?.connector.name;
  if (connector) return { kind: "connect", connector };
  return { kind: "unknown" };
}

/**
 * The job ids that count as the failing Flink writer: its own, and any successor that replaced it —
 * a job of the same name started after the failure while the failing job no longer runs (its
 * snapshots must then carry the same operator id, checked in `committedBy`). Empty for other kinds.
 */
function writerLineage(writer: WriterIdentity, evidence: Evidence): ReadonlySet<string> {
  if (writer.kind !== "flink") return new Set();
  const ids = new Set([writer.jobId]);
  if (writer.name === undefined || writer.failedAtMs === undefined || !evidence.flink) return ids;
  const jobs = [...evidence.flink.jobs, ...(evidence.flink.writers ?? []).map((w) => w.job)];
  const failing = jobs.find((j) => j.jobId === writer.jobId);
  // A failing job that still runs has no successor: another live job of its name is a twin.
  if (failing && LIVE_JOB_STATES.has(failing.state)) return ids;
  for (const j of jobs) {
    if (j.name === writer.name && j.startTimeMs > writer.failedAtMs) ids.add(j.jobId);
  }
  return ids;
}

/** True when the snapshot was committed by this writer (by its summary keys). */
export function committedBy(
  snapshot: Snapshot,
  writer: WriterIdentity,
  lineage: ReadonlySet<string> = new Set(writer.kind === "flink" ? [writer.jobId] : []),
): boolean {
  // A compaction rewrites what is there; it never shows that the writer commits again.
  if (snapshot.operation === "replace") return false;
  const identity = committerOf(snapshot);
  switch (writer.kind) {
    case "flink": {
      if (identity.kind !== "flink") return false;
      if (identity.jobId === writer.jobId) return true;
      if (!lineage.has(identity.jobId)) return false;
      // A successor continues the failing writer's committer: the same operator, when it is known.
      const operator = identity.operatorId;
      return writer.operatorId === undefined || operator === undefined || operator === writer.operatorId;
    }
    case "connect":
      // Either generation of the sink: its task id, or the consumer group its offsets key names.
      return isConnectorCommit(identity, writer.connector);
    case "unknown":
      // Without an identity, a data commit counts unless it is a batch or ad hoc engine's (a backfill).
      return identity.kind !== "spark" && identity.kind !== "trino";
  }
}

function snapshotsResumed(
  baseline: RecoveryBaseline,
  evidence: Evidence,
  lineage: ReadonlySet<string>,
): { outcome: SignalOutcome; first?: Snapshot } {
  if (!evidence.catalog)
    return { outcome: unreadable(evidence, "catalog", "cannot see the table's snapshots") };
  const first = evidence.catalog.snapshots.find(
    // A commit at the change's own moment is after it: the change time is taken before it is made.
    (s) => s.timestampMs >= baseline.changeAtMs && committedBy(s, baseline.writer, lineage),
  );
  const who = describe(baseline.writer);
  if (!first) {
    return {
      outcome: {
        ok: false,
        text: `no new snapshot from ${who} since the change at ${utcTime(baseline.changeAtMs)}`,
      },
    };
  }
  return {
    outcome: { ok: true, text: `snapshot ${first.snapshotId} from ${who} at ${utcTime(first.timestampMs)}` },
    first,
  };
}

/** The failing writer's job as read now (or its successor's), never a twin's. */
function failingJob(
  writer: WriterIdentity,
  evidence: Evidence,
  lineage: ReadonlySet<string>,
): FlinkJobEvidence | undefined {
  const all = [
    ...(evidence.flink?.writer ? [evidence.flink.writer] : []),
    ...(evidence.flink?.writers ?? []),
  ];
  if (writer.kind !== "flink") return writer.kind === "unknown" ? evidence.flink?.writer : undefined;
  // The newest run of the lineage: a successor's gauge, not the stopped job's frozen one.
  return all.filter((w) => lineage.has(w.job.jobId)).sort((a, b) => b.job.startTimeMs - a.job.startTimeMs)[0];
}

function elapsedNormal(
  baseline: RecoveryBaseline,
  evidence: Evidence,
  lineage: ReadonlySet<string>,
): { outcome: SignalOutcome; seconds: number } | undefined {
  const job = failingJob(baseline.writer, evidence, lineage);
  const seconds = job?.committer?.elapsedSecondsSinceLastSuccessfulCommit;
  if (seconds === undefined) return undefined;
  const intervalMs = baseline.commitIntervalMs ?? job?.checkpointConfig?.intervalMs;
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
  if (!status || status.name !== name)
    return unreadable(evidence, "connect", `cannot read connector ${name}`);
  const running = status.tasks.filter((t) => t.state === "RUNNING").length;
  const ok = status.state === "RUNNING" && status.tasks.length > 0 && running === status.tasks.length;
  return {
    ok,
    text: `connector ${name} ${status.state}, ${running} of ${status.tasks.length} tasks RUNNING`,
  };
}

/** A signal whose source did not answer: "could not check", with what the source said. */
function unreadable(evidence: Evidence, source: "catalog" | "connect", what: string): SignalOutcome {
  const why = evidence.sources[source].error ?? evidence.sources[source].status;
  return { ok: false, text: `${what} (${source}: ${why})`, unseen: { source, reason: why } };
}

function describe(writer: WriterIdentity): string {
  switch (writer.kind) {
    case "flink":
      return writer.name
        ? `${writer.name} (${writer.jobId.slice(0, 4)}…)`
        : `job ${writer.jobId.slice(0, 8)}…`;
    case "connect":
      return `connector ${writer.connector}`;
    case "unknown":
      return "the writer";
  }
}

function count(n: number): string {
  return groupDigits(Math.round(n));
}
