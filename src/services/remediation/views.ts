// From the stored walk to the renderers' view models: the proposal, its decision line, the
// verification message and the status card's summary. Plain functions over plain data.

import { z } from "zod";
import type { StepId } from "../../core/ids.js";
import { INCIDENT_STATES } from "../../core/incident/model.js";
import { proposalIdFor, type WalkRecord } from "../../core/playbook/record.js";

export { proposalIdFor } from "../../core/playbook/record.js";

import type { Step, VerifySignal } from "../../core/playbook/schema.js";
import { checkOutcome, type StepPhase, type StepRun, type WalkState } from "../../core/playbook/walk.js";
import type { RecoveryResult } from "../../core/verification/check.js";
import { changeTimeOf, recoveryAfterMs } from "../../core/verification/recovery.js";
import type {
  IncidentState,
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

/** The risk as the proposal and the apply form state it. */
export function stepRisk(step: Step): { level: RiskLevel; detail: string } {
  return { level: riskLevel(step), detail: step.risk.replace(LEADING_LEVEL, "") || step.risk };
}

export function riskLevel(step: Step): RiskLevel {
  if (step.risky) return "high";
  if (/^\s*(none|low)\b/i.test(step.risk)) return "low";
  if (/^\s*high\b/i.test(step.risk)) return "high";
  return "medium";
}

/** Position of a proposal in the walk (1-based), shown as "step N". */
export function proposalIndex(record: WalkRecord, proposalId: string): number {
  const distinct: string[] = [];
  for (const p of record.proposals) {
    if (!distinct.includes(p.stepId)) distinct.push(p.stepId);
    if (p.id === proposalId) return distinct.indexOf(p.stepId) + 1;
  }
  return distinct.length;
}

export function proposalView(
  record: WalkRecord,
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
      automatic: step.automatic && run.change.kind !== "manual",
    },
    index: proposalIndex(record, proposalId),
    why: step.why,
    // The level is shown as a word already; a leading "Low." in the playbook text would repeat it.
    risk: { level: riskLevel(step), detail: step.risk.replace(LEADING_LEVEL, "") || step.risk },
    verification: {
      checks: run.checksTotal,
      intervalSeconds: run.intervalMs / 1000,
      signal: step.verify.signals.map((s) => SIGNAL_WORDS[s]).join(", and "),
    },
    needsCorrectnessConfirmation: step.confirmations.includes("correctness"),
    approvers: [...approvers],
    ...earlierOutcome(record, run.stepId),
  };
}

/** What the step did in the table's earlier incident with the same cause (core/history). */
function earlierOutcome(record: WalkRecord, stepId: StepId): Pick<ProposalView, "earlier"> {
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
  record: WalkRecord,
  run: StepRun,
  step: Step,
  proposalId: string,
  check: { index: number; total: number; recovered: boolean },
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
  return {
    incidentId: record.incidentId,
    proposalId,
    stepId: run.stepId,
    table: record.table,
    stepTitle: step.title,
    writer,
    check: { index: check.index, total: check.total },
    ...(run.change.kind === "read-only-check" ? { readOnly: true } : {}),
    ...(record.openItems?.length
      ? {
          openItems: record.openItems.map(({ text, statement }) => ({
            text,
            ...(statement ? { statement } : {}),
          })),
        }
      : {}),
    intervalSeconds: run.intervalMs / 1000,
    countsFrom: { atMs: changeTimeOf(run), byHand: run.appliedBy !== undefined && run.appliedBy !== "bot" },
    latest,
    ...(outcome === undefined ? {} : { outcome }),
  };
}

/** What the status card shows about the walk, kept on the incident for the card renderer. */
export interface CardWalkSummary {
  state: IncidentState;
  nowLine?: string;
  step?: { index: number; title: string };
  check?: { index: number; total: number };
  /** credit "already-flowing": the writer committed before the step, which fixed nothing. */
  resolution?: { fixedBy: string; recoveredAfterMs: number; credit?: "fixed" | "already-flowing" };
  /** What the report leaves for a person; the card says "resolved with 1 open item" until done. */
  openItems?: CardOpenItem[];
  /** The value the card's "Mark done" button carries. */
  itemAction?: { incidentId: string; stepId: string; proposalId: string };
  /**
   * The decision waiting on a proposal, as a button on the card too: "apply" opens the same form
   * as the proposal's Apply, "done" marks a step done by hand. Absent for the bot's own checks.
   */
  decision?: { kind: "apply" | "done"; action: { incidentId: string; stepId: string; proposalId: string } };
}

export interface CardOpenItem {
  text: string;
  statement?: string;
  doneBy?: string;
  doneAtMs?: number;
}

export function cardSummary(
  record: WalkRecord,
  title: (stepId: string) => string,
  automatic: (stepId: string) => boolean = () => false,
): CardWalkSummary | undefined {
  const walk: WalkState = record.walk;
  const cur = walk.current;
  const index = (stepId: string) => {
    const id = proposalIdFor(record, stepId);
    return id === undefined ? 1 : proposalIndex(record, id);
  };
  if (cur) {
    const name = `"${title(cur.stepId)}"`;
    const step = { index: index(cur.stepId), title: title(cur.stepId) };
    switch (cur.phase) {
      case "proposed":
        return {
          state: "awaiting-approval",
          nowLine: `waiting for approval of ${name}`,
          step,
          ...decisionOf(record, cur, automatic),
        };
      case "failed":
        return {
          state: "awaiting-approval",
          nowLine: `${name} did not go through; waiting for a decision`,
          step,
          ...decisionOf(record, cur, automatic),
        };
      case "approved":
      case "applying":
        return { state: "applying", nowLine: `applying ${name}`, step };
      default: {
        // A read-only check answers at its first look: no "check 1 of 3" to wait through.
        if (cur.change.kind === "read-only-check")
          return { state: "verifying", nowLine: `the bot is checking: ${name}`, step };
        const check = { index: Math.max(1, cur.checksDone), total: cur.checksTotal };
        return {
          state: "verifying",
          nowLine: `verifying ${name}: watching the writer's commits`,
          step,
          check,
        };
      }
    }
  }
  const last = walk.history[walk.history.length - 1];
  if (walk.status === "resolved" && last) {
    const recovery = record.recovery ?? {
      atMs: record.recoveredAtMs ?? last.endedAtMs ?? 0,
      changeAtMs: changeTimeOf(last),
      credit: "fixed" as const,
    };
    const items = record.openItems ?? [];
    const proposalId = proposalIdFor(record, last.stepId);
    return {
      state: "resolved",
      step: { index: index(last.stepId), title: title(last.stepId) },
      resolution: {
        fixedBy: title(last.stepId),
        recoveredAfterMs: recoveryAfterMs(recovery),
        ...(recovery.credit === "already-flowing" ? { credit: recovery.credit } : {}),
      },
      ...(items.length > 0
        ? {
            openItems: items.map(({ text, statement, doneBy, doneAtMs }) => ({
              text,
              ...(statement ? { statement } : {}),
              ...(doneBy ? { doneBy } : {}),
              ...(doneAtMs !== undefined ? { doneAtMs } : {}),
            })),
          }
        : {}),
      ...(items.length > 0 && proposalId
        ? { itemAction: { incidentId: record.incidentId, stepId: last.stepId, proposalId } }
        : {}),
    };
  }
  if (walk.status === "stalled" && last && lastCheckUnseen(last))
    return {
      state: "stalled",
      nowLine:
        "the bot could not check the table; nothing is restarted or changed until it can; the thread is yours",
    };
  if (walk.status === "stalled")
    return { state: "stalled", nowLine: "no playbook step left to try; the thread is yours" };
  if (walk.status === "stopped") return { state: "stopped", nowLine: "the playbook was stopped" };
  return undefined;
}

/** True when the run's last check could not read what it needed. */
function lastCheckUnseen(run: StepRun): boolean {
  const check = run.checks[run.checks.length - 1];
  return check !== undefined && checkOutcome(check) === "could-not-check";
}

/** The button the card offers while a proposal waits: the proposal's own first choice. */
function decisionOf(
  record: WalkRecord,
  cur: WalkState["current"] & object,
  automatic: (stepId: string) => boolean,
): Pick<CardWalkSummary, "decision"> {
  const kind = cur.change.kind;
  if (kind === "read-only-check") return {};
  const proposalId = proposalIdFor(record, cur.stepId);
  if (proposalId === undefined) return {};
  const action = { incidentId: record.incidentId, stepId: cur.stepId, proposalId };
  const applies = automatic(cur.stepId) && kind !== "manual";
  return { decision: { kind: applies ? "apply" : "done", action } };
}

const ActionSchema = z.object({ incidentId: z.string(), stepId: z.string(), proposalId: z.string() });

const CardWalkSummarySchema = z.object({
  state: z.enum(INCIDENT_STATES),
  nowLine: z.string().optional(),
  step: z.object({ index: z.number(), title: z.string() }).optional(),
  check: z.object({ index: z.number(), total: z.number() }).optional(),
  resolution: z
    .object({
      fixedBy: z.string(),
      recoveredAfterMs: z.number(),
      credit: z.enum(["fixed", "already-flowing"]).optional(),
    })
    .optional(),
  openItems: z
    .array(
      z.object({
        text: z.string(),
        statement: z.string().optional(),
        doneBy: z.string().optional(),
        doneAtMs: z.number().optional(),
      }),
    )
    .optional(),
  itemAction: ActionSchema.optional(),
  decision: z.object({ kind: z.enum(["apply", "done"]), action: ActionSchema }).optional(),
});

/** The walk summary stored on an incident, or undefined when there is none (or it is not ours). */
export function readCardSummary(value: unknown): CardWalkSummary | undefined {
  const parsed = CardWalkSummarySchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
