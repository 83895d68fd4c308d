// What every event handler of the walk's state machine shares: building effects, refusals and
// the checks a button must pass, and where the walk goes after a step.

import { approverIds, canApprove } from "../../approval/policy.js";
import type { StepId } from "../../ids.js";
import { DEFAULT_FOLLOW_UP } from "../../settings.js";
import { isReversible } from "../change.js";
import type { Step } from "../schema.js";
import {
  type AuditEntry,
  type Effect,
  IN_FLIGHT_PHASES,
  type MachineContext,
  type Notice,
  type ProposalNote,
  type RemediationEvent,
  type StepRun,
  type TransitionResult,
  type WalkState,
} from "../walk.js";

export type EventOf<T extends RemediationEvent["type"]> = Extract<RemediationEvent, { type: T }>;
export type Handler<T extends RemediationEvent["type"]> = (
  state: WalkState,
  event: EventOf<T>,
  now: number,
  ctx: MachineContext,
) => TransitionResult;

/** The change is in place (by the bot or by hand): verification starts, first check one interval on. */
export function changeInPlace(
  state: WalkState,
  run: StepRun,
  now: number,
  note: ProposalNote,
  audited: Effect,
): TransitionResult {
  const next: StepRun = { ...run, appliedAtMs: now, verifyEndsAtMs: now + run.checksTotal * run.intervalMs };
  return {
    state: { ...state, current: next },
    effects: [
      update(next.stepId, next.phase, note),
      { type: "schedule-check", stepId: next.stepId, delayMs: next.intervalMs, checkIndex: 1 },
      audited,
    ],
  };
}

/** Ends a run with its final phase and moves it from current into the history. */
export function retire(state: WalkState, run: StepRun, phase: StepRun["phase"], now: number): WalkState {
  return { ...state, current: undefined, history: [...state.history, { ...run, phase, endedAtMs: now }] };
}

/** After a skipped or ineffective step: offer the next untried step, or end the walk. */
export function moveOn(
  state: WalkState,
  fromStepId: StepId,
  reason: "ineffective" | "skipped",
  effects: Effect[],
  now: number,
  ctx: MachineContext,
): TransitionResult {
  const next = nextTarget(state, fromStepId, ctx);
  if (next.kind === "step") {
    return {
      state,
      effects: [...effects, { type: "offer-next-step", nextStepId: next.stepId, reason }],
    };
  }
  return {
    state: { ...state, status: "stalled", endedAtMs: now },
    effects: [
      ...effects,
      next.kind === "terminal"
        ? {
            type: "walk-ended",
            outcome: "stalled",
            afterStepId: fromStepId,
            terminal: { id: next.id, title: next.title },
          }
        : { type: "walk-ended", outcome: "stalled", afterStepId: fromStepId },
    ],
  };
}

type NextTarget =
  | { kind: "step"; stepId: StepId }
  | { kind: "terminal"; id: string; title: string }
  | { kind: "exhausted" };

/** The step the playbook offers after the walk's last finished run, if any. */
export function offeredNext(state: WalkState, ctx: MachineContext): StepId | undefined {
  const last = state.history[state.history.length - 1];
  const next = last && nextTarget(state, last.stepId, ctx);
  return next?.kind === "step" ? next.stepId : undefined;
}

/** The first target of the step's ineffective transitions that is a terminal or a step not yet tried. */
export function nextTarget(state: WalkState, fromStepId: StepId, ctx: MachineContext): NextTarget {
  const from = findStep(ctx, fromStepId);
  const tried = new Set(state.history.map((r) => r.stepId));
  for (const target of from?.transitions.ineffective ?? []) {
    const terminal = ctx.playbook.terminals.find((t) => t.id === target);
    if (terminal) return { kind: "terminal", id: terminal.id, title: terminal.title };
    const step = findStep(ctx, target);
    if (step && !tried.has(step.id)) return { kind: "step", stepId: step.id };
  }
  return { kind: "exhausted" };
}

export function findStep(ctx: MachineContext, id: string): Step | undefined {
  return ctx.playbook.steps.find((s) => s.id === id);
}

export function verifyPlan(step: Step, ctx: MachineContext): { checksTotal: number; intervalMs: number } {
  const followUp = ctx.followUp ?? DEFAULT_FOLLOW_UP;
  return { checksTotal: step.verify.checks ?? followUp.checks, intervalMs: followUp.intervalSeconds * 1000 };
}

/** How many people must approve a step: two for a risky one. */
export function approvalsNeeded(step: Step): number {
  return step.risky ? 2 : 1;
}

/** The bot applied the change and kept the values it replaced, so it can put them back. */
export function isRevertable(run: StepRun): boolean {
  return isReversible(run.change) && run.appliedBy === "bot" && run.previous !== undefined;
}

/** The run whose change is in flight for this table, if any. */
export function inFlight(state: WalkState): StepRun | undefined {
  if (state.current && IN_FLIGHT_PHASES.includes(state.current.phase)) return state.current;
  return state.history.find((r) => r.phase === "reverting");
}

export function busyNotice(state: WalkState, busy: StepRun, now: number): Notice {
  const ends = busy.verifyEndsAtMs ?? now + (busy.checksTotal - busy.checksDone) * busy.intervalMs;
  return {
    kind: "one-at-a-time",
    table: state.table,
    stepId: busy.stepId,
    phase: busy.phase,
    verifyEndsAtMs: ends,
  };
}

type ButtonEvent = EventOf<"approve" | "done-by-hand" | "skip">;

/**
 * The checks every button on a proposal shares: its step is current, and the user may decide. The
 * open run when they pass, the refusal otherwise.
 */
export function openProposal(
  state: WalkState,
  event: ButtonEvent,
  now: number,
  ctx: MachineContext,
): StepRun | TransitionResult {
  const stale = staleButton(state, event, now);
  if (stale) return stale;
  if (!state.current) return alreadyHandled(state, now, event, event.user, { kind: "no-open-proposal" });
  return notPermitted(state, event, now, ctx) ?? state.current;
}

/** The refusal for a user outside the table's approvers, or undefined when they may decide. */
export function notPermitted(
  state: WalkState,
  event: RemediationEvent & { user: string },
  now: number,
  ctx: MachineContext,
): TransitionResult | undefined {
  const decision = canApprove(ctx.policy, event.user);
  if (decision.allowed) return undefined;
  return refuse(state, now, event, event.user, {
    kind: "not-approver",
    table: state.table,
    reason: decision.reason,
    ...approverIds(ctx.policy),
  });
}

/** Refuses buttons of another step (an older proposal, or one posted while a change is in flight). */
function staleButton(state: WalkState, event: ButtonEvent, now: number): TransitionResult | undefined {
  const cur = state.current;
  const busy = inFlight(state);
  if (busy && busy.stepId !== event.stepId) {
    return refuse(state, now, event, event.user, busyNotice(state, busy, now));
  }
  if (cur && cur.stepId !== event.stepId) {
    return alreadyHandled(state, now, event, event.user, { kind: "not-current", currentStepId: cur.stepId });
  }
  return undefined;
}

export function refuse(
  state: WalkState,
  now: number,
  event: RemediationEvent,
  user: string,
  notice: Notice,
  outcome: AuditEntry["outcome"] = "refused",
): TransitionResult {
  return {
    state,
    effects: [ephemeral(user, notice), audit(state, now, user, event, outcome, `${outcome}: ${notice.kind}`)],
  };
}

/** Tells the user why nothing happens; audited as ignored, since the request was already dealt with. */
export function alreadyHandled(
  state: WalkState,
  now: number,
  event: RemediationEvent,
  user: string,
  notice: Notice,
): TransitionResult {
  return refuse(state, now, event, user, notice, "ignored");
}

export function ignored(
  state: WalkState,
  now: number,
  event: RemediationEvent,
  actor: string,
  detail: string,
): TransitionResult {
  return { state, effects: [audit(state, now, actor, event, "ignored", detail)] };
}

export function ephemeral(user: string, notice: Notice): Effect {
  return { type: "post-ephemeral", user, notice };
}

export function update(stepId: StepId, phase: StepRun["phase"], note: ProposalNote): Effect {
  return { type: "update-proposal", stepId, phase, note };
}

export function audit(
  state: WalkState,
  now: number,
  actor: string,
  event: RemediationEvent,
  outcome: AuditEntry["outcome"],
  detail: string,
): Effect {
  const stepId = "stepId" in event ? event.stepId : state.current?.stepId;
  const entry: AuditEntry = {
    atMs: now,
    table: state.table,
    actor,
    action: auditAction(event),
    outcome,
    detail,
  };
  if (stepId !== undefined) entry.stepId = stepId;
  return { type: "audit", entry };
}

/** The audit trail's action for an event: a request for the next step is the proposal it asks for. */
function auditAction(event: RemediationEvent): AuditEntry["action"] {
  return event.type === "next-requested" ? "propose" : event.type;
}
