// The types of a playbook walk: its state per table, the events that move it and the effects
// the services carry out. Everything is plain data so a walk can be stored as JSON in Redis.

import type { ErrorCode } from "../../errors.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import type { StepId } from "../ids.js";
import type { Change } from "../report/schema.js";
import type { Playbook } from "./schema.js";

export type StepPhase =
  | "proposed"
  | "approved"
  | "applying"
  | "applied"
  | "done-by-hand"
  | "verifying"
  | "recovered"
  | "ineffective"
  | "failed"
  | "skipped"
  | "superseded"
  | "stopped"
  | "reverting"
  | "reverted";

/** Phases in which a change is in flight for the table: nothing else may be approved. */
export const IN_FLIGHT_PHASES: readonly StepPhase[] = [
  "approved",
  "applying",
  "applied",
  "done-by-hand",
  "verifying",
  "reverting",
];

export interface Approval {
  user: string;
  reason?: string;
  confirmations: string[];
  atMs: number;
}

export interface CheckRecord {
  index: number;
  atMs: number;
  recovered: boolean;
  detail: string;
}

/** Previous values of what a change set (null = was unset), so it can be reverted. */
export type PreviousValues = Record<string, string | null>;

/**
 * What a proposal was made against, read when it was made: the table's uuid and metadata file,
 * and the values the change replaces. The apply asserts the uuid, so a table dropped and
 * recreated in between never receives a change meant for the old one.
 */
export interface ProposalTarget {
  uuid?: string;
  metadataLocation?: string;
  values: Record<string, string | null>;
}

export interface StepRun {
  stepId: StepId;
  phase: StepPhase;
  change: Change;
  target?: ProposalTarget;
  /** Who asked for the step (the person behind the diagnosis), when a person did. */
  requestedBy?: string;
  proposedAtMs: number;
  approvals: Approval[];
  appliedAtMs?: number;
  appliedBy?: string;
  previous?: PreviousValues;
  checksDone: number;
  checksTotal: number;
  intervalMs: number;
  /** When the last follow-up check is due (or was due). */
  verifyEndsAtMs?: number;
  checks: CheckRecord[];
  failure?: { outcome: ApplyFailure; message: string; atMs: number };
  /** The phase a run had before a revert started, restored if the revert fails. */
  beforeRevert?: StepPhase;
  endedAtMs?: number;
}

export type WalkStatus = "active" | "resolved" | "stalled" | "stopped";

export interface WalkState {
  /** namespace.table */
  table: string;
  playbookId: string;
  status: WalkStatus;
  startedAtMs: number;
  current?: StepRun;
  /** Finished step runs, oldest first. */
  history: StepRun[];
  endedAtMs?: number;
}

export type ApplyFailure = "conflict" | "unknown" | "error";

export type WalkEvent =
  | { type: "propose"; stepId: StepId; change: Change; target?: ProposalTarget; requestedBy?: string }
  | { type: "approve"; stepId: StepId; user: string; reason?: string; confirmations?: string[] }
  | { type: "apply-started"; stepId: StepId }
  | { type: "apply-succeeded"; stepId: StepId; previous: PreviousValues; detail?: string }
  | { type: "apply-failed"; stepId: StepId; outcome: ApplyFailure; message: string }
  | { type: "done-by-hand"; stepId: StepId; user: string }
  | { type: "skip"; stepId: StepId; user: string }
  | { type: "stop"; user: string }
  | { type: "check"; stepId: StepId; checkIndex: number; result: { recovered: boolean; detail: string } }
  | { type: "revert-requested"; stepId: StepId; user: string }
  | { type: "reverted"; stepId: StepId; ok: boolean; message?: string };

export interface AuditEntry {
  atMs: number;
  table: string;
  /** A Slack user id, or "bot". */
  actor: string;
  action: WalkEvent["type"];
  stepId?: StepId;
  outcome: "ok" | "refused" | "ignored" | "failed";
  detail: string;
}

export type Effect =
  | {
      type: "post-proposal";
      stepId: StepId;
      change: Change;
      automatic: boolean;
      risky: boolean;
      approvalsNeeded: number;
      confirmations: string[];
      checksTotal: number;
      intervalMs: number;
    }
  | { type: "update-proposal"; stepId: StepId; phase: StepPhase; note: string }
  | { type: "post-ephemeral"; user: string; text: string; code?: ErrorCode }
  | { type: "apply-change"; stepId: StepId; change: Change }
  | { type: "schedule-check"; stepId: StepId; delayMs: number; checkIndex: number }
  | {
      type: "update-verification";
      stepId: StepId;
      checkIndex: number;
      checksTotal: number;
      recovered: boolean;
      detail: string;
      endsAtMs?: number;
    }
  | { type: "resolve-incident"; stepId: StepId; atMs: number; detail: string; timeToRecoveryMs?: number }
  | { type: "offer-next-step"; afterStepId: StepId; nextStepId: StepId; reason: "ineffective" | "skipped" }
  | { type: "walk-ended"; outcome: "stalled" | "stopped"; terminal?: string; detail: string }
  | { type: "audit"; entry: AuditEntry }
  | { type: "revert-change"; stepId: StepId; change: Change; previous: PreviousValues };

export interface FollowUpSettings {
  intervalSeconds: number;
  checks: number;
}

export interface MachineContext {
  playbook: Playbook;
  policy: ApprovalPolicy;
  /** BOT_CONFIG followUp for the table; 300 s x 6 checks when absent. */
  followUp?: FollowUpSettings;
}

export interface TransitionResult {
  state: WalkState;
  effects: Effect[];
}

/** A fresh walk for a table, before any step is proposed. */
export function startWalk(table: string, playbookId: string, now: number): WalkState {
  return { table, playbookId, status: "active", startedAtMs: now, history: [] };
}
