// The playbook walk as a pure state machine. Slack buttons, queue jobs and follow-up checks all
// become events; the services carry out the returned effects. Idempotency lives here: a repeated
// event (double click, Slack retry, duplicate delayed job) changes nothing and applies nothing.

import { ErrorCode } from "../../errors.js";
import { canApprove } from "../approval/policy.js";
import type { StepId } from "../ids.js";
import type { Step } from "./schema.js";
import {
  type AuditEntry,
  type Effect,
  type FollowUpSettings,
  IN_FLIGHT_PHASES,
  type MachineContext,
  type StepRun,
  type TransitionResult,
  type WalkEvent,
  type WalkState,
} from "./walk.js";

const DEFAULT_FOLLOW_UP: FollowUpSettings = { intervalSeconds: 300, checks: 6 };

type EventOf<T extends WalkEvent["type"]> = Extract<WalkEvent, { type: T }>;
type Handler<T extends WalkEvent["type"]> = (
  state: WalkState,
  event: EventOf<T>,
  now: number,
  ctx: MachineContext,
) => TransitionResult;

export function transition(
  state: WalkState,
  event: WalkEvent,
  now: number,
  ctx: MachineContext,
): TransitionResult {
  if (state.status !== "active" && !AFTER_END.has(event.type)) {
    return walkOver(state, event, now);
  }
  // Each entry takes only its own event type, which TypeScript cannot pair with the union here.
  const handler = HANDLERS[event.type] as Handler<WalkEvent["type"]>;
  return handler(state, event, now, ctx);
}

/** Events still meaningful after the walk ended: undoing a change, and finishing one in flight. */
const AFTER_END = new Set<WalkEvent["type"]>([
  "revert-requested",
  "reverted",
  "apply-succeeded",
  "apply-failed",
]);

// ---------------------------------------------------------------------------------------------

const onPropose: Handler<"propose"> = (state, event, now, ctx) => {
  const step = findStep(ctx, event.stepId);
  if (!step) {
    return ignored(state, now, event, "bot", `step ${event.stepId} is not in playbook ${ctx.playbook.id}`);
  }
  const busy = inFlight(state);
  if (busy) {
    return ignored(
      state,
      now,
      event,
      "bot",
      `step ${busy.stepId} is ${busy.phase}; a new proposal waits until it is verified`,
    );
  }
  const { checksTotal, intervalMs } = verifyPlan(step, ctx);
  const effects: Effect[] = [];
  const history = [...state.history];
  if (state.current) {
    history.push({ ...state.current, phase: "superseded", endedAtMs: now });
    effects.push(update(state.current.stepId, "superseded", "Replaced by a newer proposal below."));
  }
  const readOnly = step.changes.some((c) => c.kind === "read-only-check");
  const run: StepRun = {
    stepId: step.id,
    phase: readOnly ? "verifying" : "proposed",
    change: event.change,
    ...(event.target ? { target: event.target } : {}),
    requestedBy: event.requestedBy,
    proposedAtMs: now,
    approvals: [],
    checksDone: 0,
    checksTotal,
    intervalMs,
    checks: [],
    ...(readOnly ? { appliedAtMs: now, verifyEndsAtMs: now + (checksTotal - 1) * intervalMs } : {}),
  };
  effects.push({
    type: "post-proposal",
    stepId: step.id,
    change: event.change,
    automatic: step.automatic && (readOnly || event.change.kind !== "manual"),
    risky: step.risky,
    approvalsNeeded: readOnly ? 0 : approvalsNeeded(step),
    confirmations: step.confirmations,
    checksTotal,
    intervalMs,
  });
  // A read-only check changes nothing, so it needs no approval: the bot looks at once.
  if (readOnly) effects.push({ type: "schedule-check", stepId: step.id, delayMs: 0, checkIndex: 1 });
  effects.push(audit(state, now, event.requestedBy ?? "bot", event, "ok", `proposed ${step.id}`));
  return { state: { ...state, current: run, history }, effects };
};

const onApprove: Handler<"approve"> = (state, event, now, ctx) => {
  const open = openProposal(state, event, now, ctx);
  if (!open.ok) return open.result;
  const cur = open.run;
  const step = findStep(ctx, cur.stepId);
  if (!step) return ignored(state, now, event, event.user, `step ${cur.stepId} is not in the playbook`);

  switch (cur.phase) {
    case "approved":
    case "applying":
      return alreadyHandled(
        state,
        now,
        event,
        event.user,
        `Already approved by ${cur.approvals.map((a) => `<@${a.user}>`).join(" and ")}; it is applied once.`,
      );
    case "applied":
    case "done-by-hand":
    case "verifying":
      return alreadyHandled(
        state,
        now,
        event,
        event.user,
        `This change is already in place; verification runs until ${clock(cur.verifyEndsAtMs ?? now)}.`,
      );
    case "failed":
      if (cur.failure?.outcome === "conflict") {
        return refuse(
          state,
          now,
          event,
          event.user,
          "The table changed since this proposal was made; wait for the refreshed proposal and approve that one.",
          ErrorCode.ChangeInProgress,
        );
      }
      if (cur.failure?.outcome === "unknown") {
        return refuse(
          state,
          now,
          event,
          event.user,
          "Nobody can tell yet whether the last attempt landed. Check the table first; if the change is there press Done by hand, otherwise ask for a fresh proposal.",
          ErrorCode.ChangeOutcomeUnknown,
        );
      }
      break;
    case "proposed":
      break;
    default:
      return refuse(state, now, event, event.user, `This step is ${cur.phase}; nothing to approve.`);
  }

  if (!step.automatic || cur.change.kind === "manual") {
    return refuse(
      state,
      now,
      event,
      event.user,
      "The bot cannot make this change itself: run the statement shown in the proposal, then press Done by hand.",
    );
  }
  const given = new Set(event.confirmations ?? []);
  const missing = step.confirmations.filter((c) => !given.has(c));
  if (missing.length > 0) {
    return refuse(
      state,
      now,
      event,
      event.user,
      `Before approving, confirm: ${missing.join(", ")}. This step is only safe when you have checked it.`,
    );
  }
  // A failed attempt (confirmed not applied) starts the approval over: it is a new decision.
  const earlier = cur.phase === "failed" ? [] : cur.approvals;
  if (earlier.some((a) => a.user === event.user)) {
    return refuse(
      state,
      now,
      event,
      event.user,
      `You already approved this risky step; it needs a second approver other than you (${cur.approvals.length} of ${approvalsNeeded(step)}).`,
      ErrorCode.NotPermitted,
    );
  }
  const approvals = [
    ...earlier,
    { user: event.user, reason: event.reason, confirmations: [...given], atMs: now },
  ];
  const needed = approvalsNeeded(step);
  if (approvals.length < needed) {
    const next: StepRun = { ...cur, phase: "proposed", approvals, failure: undefined };
    return {
      state: { ...state, current: next },
      effects: [
        update(
          cur.stepId,
          "proposed",
          `Approved by <@${event.user}> (${approvals.length} of ${needed}); someone other than ${approvals.map((a) => `<@${a.user}>`).join(" and ")} must approve too.`,
        ),
        ephemeral(
          event.user,
          "Your approval is recorded. This step is risky, so someone else must approve it too before it is applied.",
        ),
        audit(state, now, event.user, event, "ok", `approval ${approvals.length} of ${needed}`),
      ],
    };
  }
  const next: StepRun = { ...cur, phase: "approved", approvals, failure: undefined };
  return {
    state: { ...state, current: next },
    effects: [
      update(cur.stepId, "approved", `Approved by ${approvals.map((a) => `<@${a.user}>`).join(" and ")}.`),
      { type: "apply-change", stepId: cur.stepId, change: cur.change },
      audit(
        state,
        now,
        event.user,
        event,
        "ok",
        `approved ${cur.stepId}${event.reason ? `: ${event.reason}` : ""}`,
      ),
    ],
  };
};

const onApplyStarted: Handler<"apply-started"> = (state, event, now) => {
  const cur = state.current;
  if (!cur || cur.stepId !== event.stepId || cur.phase !== "approved") {
    return ignored(state, now, event, "bot", "apply already started or the step is no longer approved");
  }
  return {
    state: { ...state, current: { ...cur, phase: "applying" } },
    effects: [
      update(cur.stepId, "applying", "Applying the change…"),
      audit(state, now, "bot", event, "ok", "applying"),
    ],
  };
};

const onApplySucceeded: Handler<"apply-succeeded"> = (state, event, now) => {
  const cur = state.current;
  const fresh = cur && cur.stepId === event.stepId && (cur.phase === "applying" || cur.phase === "approved");
  if (fresh) {
    return changeInPlace(
      state,
      { ...cur, phase: "applied", appliedBy: "bot", previous: event.previous },
      now,
      event.detail ?? "Applied. The first check follows.",
      audit(state, now, "bot", event, "ok", event.detail ?? "applied"),
    );
  }
  // The walk was stopped while the change was in flight: record what landed so it can be reverted.
  const idx = lastIndex(state.history, (r) => r.stepId === event.stepId && r.phase === "stopped");
  const run = state.history[idx];
  if (run && run.appliedAtMs === undefined) {
    const history = state.history.map((r, i) =>
      i === idx ? { ...r, appliedAtMs: now, appliedBy: "bot", previous: event.previous } : r,
    );
    return {
      state: { ...state, history },
      effects: [
        audit(state, now, "bot", event, "ok", "applied after the walk was stopped; it can be reverted"),
      ],
    };
  }
  return ignored(state, now, event, "bot", "duplicate apply result");
};

const onApplyFailed: Handler<"apply-failed"> = (state, event, now) => {
  const cur = state.current;
  if (!cur || cur.stepId !== event.stepId || (cur.phase !== "applying" && cur.phase !== "approved")) {
    return ignored(state, now, event, "bot", `late apply failure: ${event.message}`);
  }
  const notes: Record<typeof event.outcome, string> = {
    conflict: `The table changed while applying, so nothing was forced: ${event.message} A refreshed proposal follows.`,
    unknown: `It is not known whether the change landed: ${event.message} Nothing will be retried; check the table, then press Done by hand if it is there.`,
    error: `Nothing was changed: ${event.message} Press Apply to try again.`,
  };
  const next: StepRun = {
    ...cur,
    phase: "failed",
    failure: { outcome: event.outcome, message: event.message, atMs: now },
  };
  return {
    state: { ...state, current: next },
    effects: [
      update(cur.stepId, "failed", notes[event.outcome]),
      audit(state, now, "bot", event, "failed", event.message),
    ],
  };
};

const onDoneByHand: Handler<"done-by-hand"> = (state, event, now, ctx) => {
  const open = openProposal(state, event, now, ctx);
  if (!open.ok) return open.result;
  const cur = open.run;
  if (cur.phase !== "proposed" && cur.phase !== "failed") {
    return alreadyHandled(
      state,
      now,
      event,
      event.user,
      `This step is ${cur.phase}; it cannot be marked done by hand now.`,
    );
  }
  return changeInPlace(
    state,
    { ...cur, phase: "done-by-hand", appliedBy: event.user, failure: undefined },
    now,
    `Done by hand by <@${event.user}>. The first check follows.`,
    audit(state, now, event.user, event, "ok", "marked done by hand"),
  );
};

const onSkip: Handler<"skip"> = (state, event, now, ctx) => {
  const open = openProposal(state, event, now, ctx);
  if (!open.ok) return open.result;
  const cur = open.run;
  if (cur.phase === "applying" || cur.phase === "approved") {
    return refuse(
      state,
      now,
      event,
      event.user,
      "The change is being applied right now; wait for the result, then skip.",
      ErrorCode.ChangeInProgress,
    );
  }
  const base = retire(state, cur, "skipped", now);
  const effects: Effect[] = [
    update(cur.stepId, "skipped", `Skipped by <@${event.user}>.`),
    audit(state, now, event.user, event, "ok", `skipped ${cur.stepId}`),
  ];
  return moveOn(base, cur.stepId, "skipped", effects, now, ctx);
};

const onStop: Handler<"stop"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  const cur = state.current;
  if (cur?.phase === "applying") {
    return refuse(
      state,
      now,
      event,
      event.user,
      "A change is being applied right now; stop once it finishes (seconds), and revert it then if needed.",
      ErrorCode.ChangeInProgress,
    );
  }
  const effects: Effect[] = [];
  if (cur) {
    const kept = cur.appliedAtMs !== undefined ? " The change stays in place; use Revert to undo it." : "";
    effects.push(update(cur.stepId, "stopped", `Stopped by <@${event.user}>.${kept}`));
  }
  effects.push(
    { type: "walk-ended", outcome: "stopped", detail: `Stopped by <@${event.user}>.` },
    audit(state, now, event.user, event, "ok", "walk stopped"),
  );
  const base = cur ? retire(state, cur, "stopped", now) : { ...state, current: undefined };
  return { state: { ...base, status: "stopped", endedAtMs: now }, effects };
};

const onCheck: Handler<"check"> = (state, event, now, ctx) => {
  const cur = state.current;
  const waiting = cur && ["applied", "done-by-hand", "verifying"].includes(cur.phase);
  if (!cur || !waiting || cur.stepId !== event.stepId || event.checkIndex !== cur.checksDone + 1) {
    return ignored(
      state,
      now,
      event,
      "bot",
      `check ${event.checkIndex} for ${event.stepId} is stale or repeated`,
    );
  }
  const record = { index: event.checkIndex, atMs: now, ...event.result };
  const checked: StepRun = { ...cur, checksDone: event.checkIndex, checks: [...cur.checks, record] };
  const verification: Effect = {
    type: "update-verification",
    stepId: cur.stepId,
    checkIndex: event.checkIndex,
    checksTotal: cur.checksTotal,
    recovered: event.result.recovered,
    detail: event.result.detail,
    endsAtMs: cur.verifyEndsAtMs,
  };
  if (event.result.recovered) {
    return {
      state: { ...retire(state, checked, "recovered", now), status: "resolved", endedAtMs: now },
      effects: [
        verification,
        update(cur.stepId, "recovered", "The writer is committing again."),
        {
          type: "resolve-incident",
          stepId: cur.stepId,
          atMs: now,
          detail: event.result.detail,
          timeToRecoveryMs: cur.appliedAtMs === undefined ? undefined : now - cur.appliedAtMs,
        },
        audit(state, now, "bot", event, "ok", `recovered after ${cur.stepId}`),
      ],
    };
  }
  if (event.checkIndex < cur.checksTotal) {
    return {
      state: { ...state, current: { ...checked, phase: "verifying" } },
      effects: [
        verification,
        {
          type: "schedule-check",
          stepId: cur.stepId,
          delayMs: cur.intervalMs,
          checkIndex: event.checkIndex + 1,
        },
      ],
    };
  }
  const revertable = checked.previous !== undefined && isRevertable(checked);
  const effects: Effect[] = [
    verification,
    update(
      cur.stepId,
      "ineffective",
      `No recovery after ${cur.checksTotal} checks.${revertable ? " Revert is available." : ""}`,
    ),
    audit(state, now, "bot", event, "ok", `${cur.stepId} ineffective after ${cur.checksTotal} checks`),
  ];
  return moveOn(retire(state, checked, "ineffective", now), cur.stepId, "ineffective", effects, now, ctx);
};

const onRevertRequested: Handler<"revert-requested"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  const idx = lastIndex(state.history, (r) => r.stepId === event.stepId);
  const run = state.history[idx];
  if (
    !run ||
    run.previous === undefined ||
    !isRevertable(run) ||
    !["ineffective", "stopped"].includes(run.phase)
  ) {
    const why =
      run?.phase === "reverting" || run?.phase === "reverted"
        ? `already ${run.phase}`
        : "nothing the bot applied";
    return alreadyHandled(
      state,
      now,
      event,
      event.user,
      `There is nothing to revert for ${event.stepId} (${why}).`,
    );
  }
  const busy = inFlight(state);
  if (busy)
    return refuse(state, now, event, event.user, busyMessage(state, busy, now), ErrorCode.ChangeInProgress);
  const history = state.history.map((r, i) =>
    i === idx ? { ...r, phase: "reverting" as const, beforeRevert: r.phase } : r,
  );
  return {
    state: { ...state, history },
    effects: [
      { type: "revert-change", stepId: run.stepId, change: run.change, previous: run.previous },
      update(run.stepId, "reverting", `Reverting, as <@${event.user}> asked…`),
      audit(state, now, event.user, event, "ok", `revert of ${run.stepId} requested`),
    ],
  };
};

const onReverted: Handler<"reverted"> = (state, event, now) => {
  const idx = lastIndex(state.history, (r) => r.stepId === event.stepId && r.phase === "reverting");
  const run = state.history[idx];
  if (!run) return ignored(state, now, event, "bot", "no revert in progress");
  const phase = event.ok ? "reverted" : (run.beforeRevert ?? "ineffective");
  const history = state.history.map((r, i) => (i === idx ? { ...r, phase } : r));
  const note = event.ok
    ? "Reverted to the previous values."
    : `The revert did not go through: ${event.message ?? "unknown error"}. The change is still in place.`;
  return {
    state: { ...state, history },
    effects: [
      update(run.stepId, phase, note),
      audit(state, now, "bot", event, event.ok ? "ok" : "failed", note),
    ],
  };
};

const HANDLERS: { [T in WalkEvent["type"]]: Handler<T> } = {
  propose: onPropose,
  approve: onApprove,
  "apply-started": onApplyStarted,
  "apply-succeeded": onApplySucceeded,
  "apply-failed": onApplyFailed,
  "done-by-hand": onDoneByHand,
  skip: onSkip,
  stop: onStop,
  check: onCheck,
  "revert-requested": onRevertRequested,
  reverted: onReverted,
};

// ---------------------------------------------------------------------------------------------

/** The change is in place (by the bot or by hand): verification starts, first check one interval on. */
function changeInPlace(
  state: WalkState,
  run: StepRun,
  now: number,
  note: string,
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
function retire(state: WalkState, run: StepRun, phase: StepRun["phase"], now: number): WalkState {
  return { ...state, current: undefined, history: [...state.history, { ...run, phase, endedAtMs: now }] };
}

/** After a skipped or ineffective step: offer the next untried step, or end the walk. */
function moveOn(
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
      effects: [
        ...effects,
        { type: "offer-next-step", afterStepId: fromStepId, nextStepId: next.stepId, reason },
      ],
    };
  }
  const detail =
    next.kind === "terminal"
      ? `${next.title}: no further step in the playbook after ${fromStepId}.`
      : `Every follow-up step after ${fromStepId} has been tried.`;
  return {
    state: { ...state, status: "stalled", endedAtMs: now },
    effects: [
      ...effects,
      {
        type: "walk-ended",
        outcome: "stalled",
        terminal: next.kind === "terminal" ? next.id : undefined,
        detail,
      },
    ],
  };
}

type NextTarget =
  | { kind: "step"; stepId: StepId }
  | { kind: "terminal"; id: string; title: string }
  | { kind: "exhausted" };

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

function findStep(ctx: MachineContext, id: string): Step | undefined {
  return ctx.playbook.steps.find((s) => s.id === id);
}

function verifyPlan(step: Step, ctx: MachineContext): { checksTotal: number; intervalMs: number } {
  const followUp = ctx.followUp ?? DEFAULT_FOLLOW_UP;
  return { checksTotal: step.verify.checks ?? followUp.checks, intervalMs: followUp.intervalSeconds * 1000 };
}

function approvalsNeeded(step: Step): number {
  return step.risky ? 2 : 1;
}

function isRevertable(run: StepRun): boolean {
  return (
    (run.change.kind === "table-properties" || run.change.kind === "connector-config") &&
    run.appliedBy === "bot"
  );
}

/** The run whose change is in flight for this table, if any. */
function inFlight(state: WalkState): StepRun | undefined {
  if (state.current && IN_FLIGHT_PHASES.includes(state.current.phase)) return state.current;
  return state.history.find((r) => r.phase === "reverting");
}

function busyMessage(state: WalkState, busy: StepRun, now: number): string {
  const ends = busy.verifyEndsAtMs ?? now + (busy.checksTotal - busy.checksDone) * busy.intervalMs;
  return `One change at a time: ${busy.stepId} on ${state.table} is ${busy.phase}; its verification ends at ${clock(ends)}. Decide on the next step after that.`;
}

type ButtonEvent = EventOf<"approve" | "done-by-hand" | "skip">;

/** The checks every button on a proposal shares: its step is current, and the user may decide. */
function openProposal(
  state: WalkState,
  event: ButtonEvent,
  now: number,
  ctx: MachineContext,
): { ok: true; run: StepRun } | { ok: false; result: TransitionResult } {
  const cur = state.current;
  const stale = staleButton(state, event.stepId, event.user, event, now);
  if (stale || !cur) return { ok: false, result: stale ?? noCurrent(state, event, now, event.user) };
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return { ok: false, result: denied };
  return { ok: true, run: cur };
}

/** The refusal for a user outside the table's approvers, or undefined when they may decide. */
function notPermitted(
  state: WalkState,
  event: WalkEvent & { user: string },
  now: number,
  ctx: MachineContext,
): TransitionResult | undefined {
  const decision = canApprove(ctx.policy, event.user);
  if (decision.allowed) return undefined;
  return refuse(state, now, event, event.user, decision.reason, ErrorCode.NotPermitted);
}

/** Refuses buttons of another step (an older proposal, or one posted while a change is in flight). */
function staleButton(
  state: WalkState,
  stepId: StepId,
  user: string,
  event: WalkEvent,
  now: number,
): TransitionResult | undefined {
  const cur = state.current;
  const busy = inFlight(state);
  if (busy && busy.stepId !== stepId) {
    return refuse(state, now, event, user, busyMessage(state, busy, now), ErrorCode.ChangeInProgress);
  }
  if (cur && cur.stepId !== stepId) {
    return alreadyHandled(
      state,
      now,
      event,
      user,
      `This proposal is out of date; the current step is ${cur.stepId}. Use the latest proposal in the thread.`,
    );
  }
  return undefined;
}

function noCurrent(state: WalkState, event: WalkEvent, now: number, user: string): TransitionResult {
  return alreadyHandled(state, now, event, user, "There is no open proposal for this table right now.");
}

function walkOver(state: WalkState, event: WalkEvent, now: number): TransitionResult {
  const user = "user" in event ? event.user : undefined;
  if (!user) return ignored(state, now, event, "bot", `the walk is ${state.status}`);
  return alreadyHandled(
    state,
    now,
    event,
    user,
    `The playbook for ${state.table} has ended (${state.status}). Run /iceberg diagnose ${state.table} to start again.`,
  );
}

function refuse(
  state: WalkState,
  now: number,
  event: WalkEvent,
  user: string,
  text: string,
  code?: ErrorCode,
  outcome: AuditEntry["outcome"] = "refused",
): TransitionResult {
  return {
    state,
    effects: [ephemeral(user, text, code), audit(state, now, user, event, outcome, text)],
  };
}

/** Tells the user why nothing happens; audited as ignored, since the request was already dealt with. */
function alreadyHandled(
  state: WalkState,
  now: number,
  event: WalkEvent,
  user: string,
  text: string,
): TransitionResult {
  return refuse(state, now, event, user, text, undefined, "ignored");
}

function ignored(
  state: WalkState,
  now: number,
  event: WalkEvent,
  actor: string,
  detail: string,
): TransitionResult {
  return { state, effects: [audit(state, now, actor, event, "ignored", detail)] };
}

function ephemeral(user: string, text: string, code?: ErrorCode): Effect {
  return code === undefined
    ? { type: "post-ephemeral", user, text }
    : { type: "post-ephemeral", user, text, code };
}

function update(stepId: StepId, phase: StepRun["phase"], note: string): Effect {
  return { type: "update-proposal", stepId, phase, note };
}

function audit(
  state: WalkState,
  now: number,
  actor: string,
  event: WalkEvent,
  outcome: AuditEntry["outcome"],
  detail: string,
): Effect {
  const stepId = "stepId" in event ? event.stepId : state.current?.stepId;
  const entry: AuditEntry = { atMs: now, table: state.table, actor, action: event.type, outcome, detail };
  if (stepId !== undefined) entry.stepId = stepId;
  return { type: "audit", entry };
}

function lastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) {
    if (predicate(items[i] as T)) return i;
  }
  return -1;
}

/** "09:42 UTC" — deterministic, no locale. */
export function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)} UTC`;
}
