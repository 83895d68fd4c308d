// The types of a playbook walk: its state per table, the events that move it and the effects
// the services carry out. Everything is plain data so a walk can be stored as JSON in Redis; the
// state's types are read from the schema every stored walk is checked against (record-format.ts).
// Its schemas are built on their first parse (z.lazy): a command that reads no stored walk, such
// as diagnose, does not build them.

import { z } from "zod";
import type { ApprovalPolicy } from "../approval/policy.js";
import { STEP_IDS, type StepId } from "../ids.js";
import { type Change, ChangeSchema } from "../report/schema.js";
import type { ResolvedTableSettings } from "../settings.js";
import type { CheckOutcome, RecoveryResult, Unseen } from "../verification/check.js";
import type { Playbook } from "./schema.js";

const STEP_PHASES = [
  "proposed",
  "approved",
  "applying",
  "applied",
  "done-by-hand",
  "verifying",
  "recovered",
  "ineffective",
  "failed",
  "skipped",
  "superseded",
  "stopped",
  "reverting",
  "reverted",
] as const;
export type StepPhase = (typeof STEP_PHASES)[number];

/** Phases in which a change is in flight for the table: nothing else may be approved. */
export const IN_FLIGHT_PHASES: readonly StepPhase[] = [
  "approved",
  "applying",
  "applied",
  "done-by-hand",
  "verifying",
  "reverting",
];

/**
 * A loose object's type without its index signature: the fields this release reads and writes. A
 * record of values (no named field) stays as it is.
 */
export type Known<T> = T extends readonly (infer U)[]
  ? Known<U>[]
  : T extends object
    ? keyof Named<T> extends never
      ? T
      : Named<T>
    : T;
type Named<T> = { [K in keyof T as string extends K ? never : K]: Known<T[K]> };

const APPLY_FAILURES = ["conflict", "unknown", "error"] as const;
type ApplyFailure = (typeof APPLY_FAILURES)[number];
const WALK_STATUSES = ["active", "resolved", "stalled", "stopped"] as const;
type WalkStatus = (typeof WALK_STATUSES)[number];

export const StepIdSchema = z.enum(STEP_IDS);
const PhaseSchema = z.enum(STEP_PHASES);
/** Values of what a change set (null = was unset), so it can be reverted. */
const ValuesSchema = z.record(z.string(), z.string().nullable());

const CheckRecordSchema = z.lazy(() =>
  z.looseObject({
    index: z.number(),
    atMs: z.number(),
    /** Kept for records written before `outcome`: read a record through checkOutcome(). */
    recovered: z.boolean(),
    outcome: z.enum(["recovered", "not-yet", "could-not-check"]).optional(),
    detail: z.string(),
    /** What the check could not read (the source and its error), when it could not check. */
    unseen: z.array(z.looseObject({ source: z.string(), reason: z.string() })).optional(),
  }),
);

/**
 * What a proposal was made against, read when it was made: the table's uuid and metadata file,
 * and the values the change replaces. The apply asserts the uuid, so a table dropped and
 * recreated in between never receives a change meant for the old one.
 */
const ProposalTargetSchema = z.lazy(() =>
  z.looseObject({
    uuid: z.string().optional(),
    metadataLocation: z.string().optional(),
    values: ValuesSchema,
  }),
);

const StepRunSchema = z.lazy(() =>
  z.looseObject({
    stepId: StepIdSchema,
    phase: PhaseSchema,
    change: ChangeSchema,
    target: ProposalTargetSchema.optional(),
    /** Who asked for the step (the person behind the diagnosis), when a person did. */
    requestedBy: z.string().optional(),
    proposedAtMs: z.number(),
    approvals: z.array(
      z.looseObject({
        user: z.string(),
        reason: z.string().optional(),
        confirmations: z.array(z.string()),
        atMs: z.number(),
      }),
    ),
    /** When the bot applied the change, or when someone pressed Done by hand. */
    appliedAtMs: z.number().optional(),
    /**
     * When the change counts from, for the follow-up checks and the recovery time: when the bot's
     * apply started, or for a change done by hand its proposal (changeTimeOf in
     * core/verification/recovery.ts).
     */
    changeAtMs: z.number().optional(),
    appliedBy: z.string().optional(),
    previous: ValuesSchema.optional(),
    checksDone: z.number().int().min(0),
    checksTotal: z.number().int().min(0),
    intervalMs: z.number().min(0),
    /** When the last follow-up check is due (or was due). */
    verifyEndsAtMs: z.number().optional(),
    checks: z.array(CheckRecordSchema),
    failure: z
      .looseObject({ outcome: z.enum(APPLY_FAILURES), message: z.string(), atMs: z.number() })
      .optional(),
    /** The phase a run had before a revert started, restored if the revert fails. */
    beforeRevert: PhaseSchema.optional(),
    /** Who pressed Skip, for the incident's history. */
    skippedBy: z.string().optional(),
    endedAtMs: z.number().optional(),
  }),
);

export const WalkStateSchema = z.lazy(() =>
  z.looseObject({
    /** namespace.table */
    table: z.string(),
    playbookId: z.string(),
    status: z.enum(WALK_STATUSES),
    startedAtMs: z.number(),
    current: StepRunSchema.optional(),
    /** Finished step runs, oldest first. */
    history: z.array(StepRunSchema),
    endedAtMs: z.number().optional(),
  }),
);

export type CheckRecord = Known<z.infer<typeof CheckRecordSchema>>;
export type PreviousValues = z.infer<typeof ValuesSchema>;
export type ProposalTarget = Known<z.infer<typeof ProposalTargetSchema>>;
export type StepRun = Known<z.infer<typeof StepRunSchema>>;
export type WalkState = Known<z.infer<typeof WalkStateSchema>>;

/** A check's outcome, also for a record written before outcomes were kept. */
export function checkOutcome(check: Pick<CheckRecord, "recovered" | "outcome">): CheckOutcome {
  return check.outcome ?? (check.recovered ? "recovered" : "not-yet");
}

/** What a follow-up check hands the machine; without an outcome (older callers), read by `recovered`. */
export type CheckResult = Pick<RecoveryResult, "recovered" | "detail" | "unseen"> &
  Partial<Pick<RecoveryResult, "outcome">>;

export type RemediationEvent =
  | { type: "propose"; stepId: StepId; change: Change; target?: ProposalTarget; requestedBy?: string }
  | { type: "approve"; stepId: StepId; user: string; reason?: string; confirmations?: string[] }
  | { type: "apply-started"; stepId: StepId }
  | { type: "apply-succeeded"; stepId: StepId; previous: PreviousValues; detail?: string }
  | { type: "apply-failed"; stepId: StepId; outcome: ApplyFailure; message: string }
  | { type: "done-by-hand"; stepId: StepId; user: string }
  | { type: "skip"; stepId: StepId; user: string }
  | { type: "stop"; user: string }
  | { type: "check"; stepId: StepId; checkIndex: number; result: CheckResult }
  | { type: "revert-requested"; stepId: StepId; user: string }
  | { type: "reverted"; stepId: StepId; ok: boolean; message?: string }
  /** "Next step" pressed after an ineffective step: may this person have the step proposed now? */
  | { type: "next-requested"; stepId: StepId; user: string };

export interface AuditEntry {
  atMs: number;
  table: string;
  /** A Slack user id, or "bot". */
  actor: string;
  /** A request for the next step is audited as the proposal it asks for. */
  action: Exclude<RemediationEvent["type"], "next-requested"> | "item-done";
  stepId?: StepId;
  outcome: "ok" | "refused" | "ignored" | "failed";
  detail: string;
}

/**
 * Why a click changed nothing, or what it did, as data. The Slack renderer owns the words and
 * the mentions; the core only says which case it is and with which ids and times.
 */
export type Notice =
  | { kind: "stale-proposal" }
  | { kind: "not-current"; currentStepId: StepId }
  | { kind: "already-approved"; approverUserIds: string[] }
  | { kind: "already-in-place"; verifyEndsAtMs: number }
  | { kind: "await-refresh" }
  | { kind: "outcome-unknown" }
  | { kind: "nothing-to-approve"; phase: StepPhase }
  | { kind: "manual-step" }
  | { kind: "confirm-first"; missing: string[] }
  | { kind: "second-approver-needed"; approvals: number; needed: number }
  | { kind: "approval-recorded" }
  | { kind: "cannot-mark-done"; phase: StepPhase }
  | { kind: "applying-now"; action: "skip" | "stop" }
  | { kind: "nothing-to-revert"; stepId: StepId; why: "reverting" | "reverted" | "not-applied-by-bot" }
  | { kind: "one-at-a-time"; table: string; stepId: StepId; phase: StepPhase; verifyEndsAtMs: number }
  | { kind: "no-open-proposal" }
  /** The incident has no walk any more (it ended or was never started). */
  | { kind: "no-walk" }
  | { kind: "walk-over"; table: string; status: WalkStatus }
  | {
      kind: "not-approver";
      table: string;
      /** "no-approvers": nobody is configured (fail closed); "not-listed": the user is not among them. */
      reason: "no-approvers" | "not-listed";
      approverUserIds: string[];
      approverGroupIds: string[];
    }
  | { kind: "already-proposed" }
  | { kind: "step-open" }
  | { kind: "offer-changed" }
  | { kind: "apply-form-failed" }
  /** The incident's stored walk cannot be used by this release (unreadable, or a newer release's). */
  | { kind: "record-unreadable"; incidentId: string; newer: boolean };

/** The line under an edited proposal: what happened to it, as data. */
export type ProposalNote =
  | { kind: "superseded" }
  | { kind: "approval-recorded"; by: string; approvals: number; needed: number; approverUserIds: string[] }
  | { kind: "approved"; approverUserIds: string[] }
  | { kind: "applying" }
  | { kind: "applied"; detail?: string }
  | { kind: "apply-failed"; outcome: ApplyFailure; message: string }
  | { kind: "done-by-hand"; by: string }
  | { kind: "skipped"; by: string }
  | { kind: "stopped"; by: string; changeKept: boolean }
  | { kind: "recovered" }
  /** The last check could not read what it needed: nothing is said about the writer. */
  | { kind: "could-not-check"; checks: number; unseen: Unseen[] }
  | {
      kind: "ineffective";
      checks: number;
      revertable: boolean;
      /** A read-only check: it answered its question; there was nothing to recover from. */
      readOnly?: boolean;
    }
  | { kind: "reverting"; by: string }
  | { kind: "reverted" }
  | { kind: "revert-failed"; message?: string };

export type Effect =
  | { type: "post-proposal"; stepId: StepId }
  | { type: "update-proposal"; stepId: StepId; phase: StepPhase; note: ProposalNote }
  | { type: "post-ephemeral"; user: string; notice: Notice }
  | { type: "apply-change"; stepId: StepId }
  | { type: "schedule-check"; stepId: StepId; delayMs: number; checkIndex: number }
  /** The check just recorded, of `checksTotal`. */
  | { type: "update-verification"; stepId: StepId; checksTotal: number; check: CheckRecord }
  | { type: "resolve-incident"; stepId: StepId }
  /**
   * The next step to try. "skipped" and "requested" (the Next step button, allowed) are proposed at
   * once, built from the table as it is then; "ineffective" waits for that button.
   */
  | { type: "offer-next-step"; nextStepId: StepId; reason: "ineffective" | "skipped" | "requested" }
  | { type: "walk-ended"; outcome: "stopped"; by: string }
  | {
      type: "walk-ended";
      outcome: "stalled";
      afterStepId: StepId;
      /** The playbook's terminal reached, when the walk ended at one rather than running out of steps. */
      terminal?: { id: string; title: string };
      /**
       * The last check could not read these: no step that restarts or changes anything is offered
       * while whether the last commit landed is unknown (RUNBOOK rule 1).
       */
      unseen?: Unseen[];
    }
  | { type: "audit"; entry: AuditEntry }
  | { type: "revert-change"; stepId: StepId };

export interface MachineContext {
  playbook: Playbook;
  policy: ApprovalPolicy;
  /** BOT_CONFIG followUp for the table; 300 s x 6 checks when absent. */
  followUp?: ResolvedTableSettings["followUp"];
}

export interface TransitionResult {
  state: WalkState;
  effects: Effect[];
}

/** Every run of the walk, oldest first: the finished ones, then the current one. */
export function runsOf(walk: Pick<WalkState, "history" | "current">): StepRun[] {
  return walk.current ? [...walk.history, walk.current] : [...walk.history];
}

/** A fresh walk for a table, before any step is proposed. */
export function startWalk(table: string, playbookId: string, now: number): WalkState {
  return { table, playbookId, status: "active", startedAtMs: now, history: [] };
}
