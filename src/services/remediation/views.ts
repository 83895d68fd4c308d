// From the stored walk to the renderers' view models: the proposal, its decision line, the
// verification message. Plain functions over plain data; the status card reads the incident's
// story (core/story) instead.

import type { StepId } from "../../core/ids.js";
import { isAutomatic } from "../../core/remediation/change.js";
import { type RemediationRecord, stepIndex } from "../../core/remediation/record.js";
import type { Step, VerifySignal } from "../../core/remediation/schema.js";
import type { StepPhase, StepRun } from "../../core/remediation/walk.js";
import type { RecoveryResult } from "../../core/verification/check.js";
import { pendingItems } from "../../core/verification/open-items.js";
import { changeTimeOf, madeByHand } from "../../core/verification/recovery.js";
import type {
  ProposalDecision,
  ProposalView,
  RiskLevel,
  VerificationOutcome,
  VerificationView,
} from "../view-models.js";

const SIGNAL_WORDS: Record<VerifySignal, string> = {
  "writer-snapshots-resume": "the writer commits again",
  "elapsed-seconds-normal": "its commit gap is normal",
  "connector-running": "the connector and its tasks are RUNNING",
};

const LEADING_LEVEL = /^\s*(none|low|medium|high)\b[.;:,]?\s*/i;

/**
 * The risk as the proposal and the apply form state it. The level is shown as a word already; a
 * leading "Low." in the playbook text would repeat it.
 */
export function stepRisk(step: Step): { level: RiskLevel; detail: string } {
  return { level: riskLevel(step), detail: step.risk.replace(LEADING_LEVEL, "") || step.risk };
}

function riskLevel(step: Step): RiskLevel {
  if (step.risky) return "high";
  if (/^\s*(none|low)\b/i.test(step.risk)) return "low";
  if (/^\s*high\b/i.test(step.risk)) return "high";
  return "medium";
}

export function proposalView(
  record: RemediationRecord,
  run: StepRun,
  step: Step,
  proposalId: string,
  approvers: readonly string[],
): ProposalView {
  return {
    incidentId: record.incidentId,
    proposalId,
    table: record.table,
    step: {
      id: run.stepId,
      playbook: record.walk.playbookId,
      summary: step.title,
      change: run.change,
      automatic: isAutomatic(step, run.change),
    },
    // The proposal is the step's latest: its position is the step's.
    index: stepIndex(record, run.stepId),
    why: step.why,
    risk: stepRisk(step),
    verification: {
      checks: run.checksTotal,
      intervalSeconds: run.intervalMs / 1000,
      signal: step.verify.signals.map((s) => SIGNAL_WORDS[s]).join(", and "),
    },
    approvers: [...approvers],
    ...earlierOutcome(record, run.stepId),
  };
}

/** What the step did in the table's earlier incident with the same cause (core/history). */
function earlierOutcome(record: RemediationRecord, stepId: StepId): Pick<ProposalView, "earlier"> {
  const memory = record.memory;
  if (!memory) return {};
  const incidentId = memory.earlierIncidentId;
  if (memory.fixedBy === stepId) return { earlier: { outcome: "fixed", incidentId } };
  if (memory.didNotHelp.includes(stepId)) return { earlier: { outcome: "did-not-help", incidentId } };
  return {};
}

/** What the proposal message shows once a decision was taken; undefined keeps the buttons. */
export function decisionFor(
  run: StepRun,
  phase: StepPhase,
  actor: string | undefined,
  now: number,
): ProposalDecision | undefined {
  const approver = run.approvals[run.approvals.length - 1];
  const reason = approver?.reason;
  const by = actor ?? approver?.user ?? run.appliedBy ?? "bot";
  // Every approver keeps their name and reason on the message, not only the last one.
  const all = run.approvals.map((a) => ({
    by: a.user,
    atMs: a.atMs,
    ...(a.reason ? { reason: a.reason } : {}),
  }));
  const withReason = (d: ProposalDecision): ProposalDecision => ({
    ...d,
    ...(reason ? { reason } : {}),
    ...(all.length > 1 ? { approvers: all } : {}),
  });
  switch (phase) {
    case "approved":
    case "applying":
      return withReason({ kind: "applying", by: approver?.user ?? by, atMs: approver?.atMs ?? now });
    case "applied":
    case "verifying":
    case "recovered":
    case "ineffective":
    case "reverting":
      if (run.appliedBy !== undefined && run.appliedBy !== "bot")
        return { kind: "done-by-hand", by: run.appliedBy, atMs: run.appliedAtMs ?? now };
      return withReason({ kind: "applied", by: approver?.user ?? by, atMs: run.appliedAtMs ?? now });
    case "done-by-hand":
      return { kind: "done-by-hand", by, atMs: run.appliedAtMs ?? now };
    case "skipped":
      return { kind: "skipped", by, atMs: now };
    case "stopped":
    case "superseded":
      return { kind: "stopped", by, atMs: now };
    case "reverted":
      return { kind: "reverted", by, atMs: now };
    case "proposed":
    case "failed":
      return undefined;
  }
}

export function verificationView(
  record: RemediationRecord,
  run: StepRun,
  proposalId: string,
  check: { index: number; total: number },
  recovery: RecoveryResult | undefined,
  outcome: VerificationOutcome | undefined,
): VerificationView {
  const watched = record.writer;
  const writer: VerificationView["writer"] = watched
    ? { kind: watched.kind, id: watched.id, ...(watched.name ? { name: watched.name } : {}) }
    : { kind: "flink-job", id: "the writer" };
  const latest: NonNullable<VerificationView["latest"]> = {
    newSnapshotId: recovery?.firstNewSnapshot?.id ?? null,
    ...(recovery?.unseen?.length ? { unseen: recovery.unseen } : {}),
  };
  if (recovery?.elapsedSeconds !== undefined)
    latest.elapsedSecondsSinceLastSuccessfulCommit = recovery.elapsedSeconds;
  const pending = pendingItems(record.openItems);
  return {
    incidentId: record.incidentId,
    proposalId,
    stepId: run.stepId,
    table: record.table,
    writer,
    check,
    ...(run.change.kind === "read-only-check" ? { readOnly: true } : {}),
    // What is still to do: an item already marked done (with the step's Done by hand) is not.
    ...(pending.length
      ? {
          openItems: pending.map(({ text, statement }) => ({
            text,
            ...(statement ? { statement } : {}),
          })),
        }
      : {}),
    ...((record.openItems ?? []).some((item) => item.resolvedBy === "remove-duplicate-commit")
      ? { landedTwice: true }
      : {}),
    intervalSeconds: run.intervalMs / 1000,
    countsFrom: { atMs: changeTimeOf(run), byHand: madeByHand(run) },
    latest,
    ...(outcome === undefined ? {} : { outcome }),
  };
}
