// The playbook walk as a pure state machine. Slack buttons, queue jobs and follow-up checks all
// become events; the services carry out the returned effects. Idempotency lives here: a repeated
// event (double click, Slack retry, duplicate delayed job) changes nothing and applies nothing.

import { approverIds, canApprove } from "../approval/policy.js";
import type { StepId } from "../ids.js";
import type { Step } from "./schema.js";
import {
  type AuditEntry,
  type CheckRecord,
  checkOutcome,
  type Effect,
  type FollowUpSettings,
  IN_FLIGHT_PHASES,
  type MachineContext,
  type Notice,
  type ProposalNote,
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

/**
 * Events still meaningful after the walk ended (undoing a change, finishing one in flight), and a
 * request for the next step, which says itself why an ended walk offers none.
 */
const AFTER_END = new Set<WalkEvent["type"]>([
  "revert-requested",
  "reverted",
  "apply-succeeded",
  "apply-failed",
  "next-requested",
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
    effects.push(update(state.current.stepId, "superseded", { kind: "superseded" }));
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
  effects.push({ type: "post-proposal", stepId: step.id });
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
      return alreadyHandled(state, now, event, event.user, {
        kind: "already-approved",
        approverUserIds: cur.approvals.map((a) => a.user),
      });
    case "applied":
    case "done-by-hand":
    case "verifying":
      return alreadyHandled(state, now, event, event.user, {
        kind: "already-in-place",
        verifyEndsAtMs: cur.verifyEndsAtMs ?? now,
      });
    case "failed":
      if (cur.failure?.outcome === "conflict") {
        return refuse(state, now, event, event.user, { kind: "await-refresh" });
      }
      if (cur.failure?.outcome === "unknown") {
        return refuse(state, now, event, event.user, { kind: "outcome-unknown" });
      }
      break;
    case "proposed":
      break;
    default:
      return refuse(state, now, event, event.user, { kind: "nothing-to-approve", phase: cur.phase });
  }

  if (!step.automatic || cur.change.kind === "manual") {
    return refuse(state, now, event, event.user, { kind: "manual-step" });
  }
  const given = new Set(event.confirmations ?? []);
  const missing = step.confirmations.filter((c) => !given.has(c));
  if (missing.length > 0) {
    return refuse(state, now, event, event.user, { kind: "confirm-first", missing });
  }
  // A failed attempt (confirmed not applied) starts the approval over: it is a new decision.
  const earlier = cur.phase === "failed" ? [] : cur.approvals;
  if (earlier.some((a) => a.user === event.user)) {
    return refuse(state, now, event, event.user, {
      kind: "second-approver-needed",
      approvals: cur.approvals.length,
      needed: approvalsNeeded(step),
    });
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
        update(cur.stepId, "proposed", {
          kind: "approval-recorded",
          by: event.user,
          approvals: approvals.length,
          needed,
          approverUserIds: approvals.map((a) => a.user),
        }),
        ephemeral(event.user, { kind: "approval-recorded" }),
        // The history keeps each approver's reason, not only the last one's.
        audit(
          state,
          now,
          event.user,
          event,
          "ok",
          `approval ${approvals.length} of ${needed}${event.reason ? `: ${event.reason}` : ""}`,
        ),
      ],
    };
  }
  const next: StepRun = { ...cur, phase: "approved", approvals, failure: undefined };
  return {
    state: { ...state, current: next },
    effects: [
      update(cur.stepId, "approved", { kind: "approved", approverUserIds: approvals.map((a) => a.user) }),
      { type: "apply-change", stepId: cur.stepId },
      audit(
        state,
        now,
        event.user,
        event,
        "ok",
        `${needed > 1 ? `approval ${approvals.length} of ${needed}, ` : ""}approved ${cur.stepId}${event.reason ? `: ${event.reason}` : ""}`,
      ),
    ],
  };
};

const onApplyStarted: Handler<"apply-started"> = (state, event, now) => {
  const cur = state.current;
  if (!cur || cur.stepId !== event.stepId || cur.phase !== "approved") {
    return ignored(state, now, event, "bot", "apply already started or the step is no longer approved");
  }
  // The change counts from here: the catalog may take it, and the writer commit, before the bot
  // records it applied (core/verification/recovery.ts).
  return {
    state: { ...state, current: { ...cur, phase: "applying", changeAtMs: now } },
    effects: [
      update(cur.stepId, "applying", { kind: "applying" }),
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
      event.detail === undefined ? { kind: "applied" } : { kind: "applied", detail: event.detail },
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
  const next: StepRun = {
    ...cur,
    phase: "failed",
    failure: { outcome: event.outcome, message: event.message, atMs: now },
  };
  return {
    state: { ...state, current: next },
    effects: [
      update(cur.stepId, "failed", { kind: "apply-failed", outcome: event.outcome, message: event.message }),
      audit(state, now, "bot", event, "failed", event.message),
    ],
  };
};

const onDoneByHand: Handler<"done-by-hand"> = (state, event, now, ctx) => {
  const open = openProposal(state, event, now, ctx);
  if (!open.ok) return open.result;
  const cur = open.run;
  if (cur.phase !== "proposed" && cur.phase !== "failed") {
    return alreadyHandled(state, now, event, event.user, { kind: "cannot-mark-done", phase: cur.phase });
  }
  // Done before the press, at a time the bot cannot know: it counts from the proposal, so a commit
  // made between the proposal and the press is counted (core/verification/recovery.ts).
  return changeInPlace(
    state,
    {
      ...cur,
      phase: "done-by-hand",
      appliedBy: event.user,
      changeAtMs: cur.proposedAtMs,
      failure: undefined,
    },
    now,
    { kind: "done-by-hand", by: event.user },
    audit(state, now, event.user, event, "ok", "marked done by hand"),
  );
};

const onSkip: Handler<"skip"> = (state, event, now, ctx) => {
  const open = openProposal(state, event, now, ctx);
  if (!open.ok) return open.result;
  const cur = open.run;
  if (cur.phase === "applying" || cur.phase === "approved") {
    return refuse(state, now, event, event.user, { kind: "applying-now", action: "skip" });
  }
  const base = retire(state, { ...cur, skippedBy: event.user }, "skipped", now);
  const effects: Effect[] = [
    update(cur.stepId, "skipped", { kind: "skipped", by: event.user }),
    audit(state, now, event.user, event, "ok", `skipped ${cur.stepId}`),
  ];
  return moveOn(base, cur.stepId, "skipped", effects, now, ctx);
};

const onStop: Handler<"stop"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  const cur = state.current;
  if (cur?.phase === "applying") {
    return refuse(state, now, event, event.user, { kind: "applying-now", action: "stop" });
  }
  const effects: Effect[] = [];
  if (cur) {
    const changeKept = cur.appliedAtMs !== undefined;
    effects.push(update(cur.stepId, "stopped", { kind: "stopped", by: event.user, changeKept }));
  }
  effects.push(
    { type: "walk-ended", outcome: "stopped", by: event.user },
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
  const { recovered, detail, unseen } = event.result;
  const outcome = checkOutcome(event.result);
  const record: CheckRecord = {
    index: event.checkIndex,
    atMs: now,
    recovered,
    outcome,
    detail,
    ...(unseen?.length ? { unseen } : {}),
  };
  // A read-only check has answered its question at its first look: the real step is not held
  // back. One that could not look has answered nothing: it looks again at the next check.
  const readOnly = cur.change.kind === "read-only-check";
  const checksTotal = readOnly && outcome !== "could-not-check" ? event.checkIndex : cur.checksTotal;
  const checked: StepRun = {
    ...cur,
    checksDone: event.checkIndex,
    checksTotal,
    checks: [...cur.checks, record],
  };
  const verification: Effect = {
    type: "update-verification",
    stepId: cur.stepId,
    checkIndex: event.checkIndex,
    checksTotal,
    recovered,
    outcome,
    detail,
    ...(record.unseen ? { unseen: record.unseen } : {}),
  };
  if (outcome === "recovered") {
    return {
      state: { ...retire(state, checked, "recovered", now), status: "resolved", endedAtMs: now },
      effects: [
        verification,
        update(cur.stepId, "recovered", { kind: "recovered" }),
        { type: "resolve-incident", stepId: cur.stepId },
        audit(state, now, "bot", event, "ok", `recovered after ${cur.stepId}`),
      ],
    };
  }
  if (event.checkIndex < checksTotal) {
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
  if (outcome === "could-not-check") return couldNotCheck(state, checked, event, record, verification, now);
  const revertable = checked.previous !== undefined && isRevertable(checked);
  const effects: Effect[] = [
    verification,
    update(cur.stepId, "ineffective", {
      kind: "ineffective",
      checks: event.checkIndex,
      revertable,
      ...(readOnly ? { readOnly: true } : {}),
    }),
    audit(
      state,
      now,
      "bot",
      event,
      "ok",
      readOnly
        ? `${cur.stepId} checked: no new commit from the writer`
        : `${cur.stepId} ineffective after ${cur.checksTotal} checks`,
    ),
  ];
  return moveOn(retire(state, checked, "ineffective", now), cur.stepId, "ineffective", effects, now, ctx);
};

/**
 * The last check could not read what it needed. Nothing is known about the writer, so the step
 * neither helped nor failed to, and no step that restarts or changes anything is offered while
 * whether the last commit landed is unknown (RUNBOOK rule 1): the walk ends for a person.
 */
function couldNotCheck(
  state: WalkState,
  checked: StepRun,
  event: EventOf<"check">,
  record: CheckRecord,
  verification: Effect,
  now: number,
): TransitionResult {
  const unseen = record.unseen ?? [];
  const sources = unseen.map((u) => `${u.source}: ${u.reason}`).join("; ");
  const ended = retire(state, checked, "ineffective", now);
  return {
    state: { ...ended, status: "stalled", endedAtMs: now },
    effects: [
      verification,
      update(checked.stepId, "ineffective", { kind: "could-not-check", checks: event.checkIndex, unseen }),
      audit(
        state,
        now,
        "bot",
        event,
        "ok",
        `${checked.stepId} could not be checked (${sources || record.detail})`,
      ),
      { type: "walk-ended", outcome: "stalled", afterStepId: checked.stepId, unseen },
    ],
  };
}

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
    const why = run?.phase === "reverting" || run?.phase === "reverted" ? run.phase : "not-applied-by-bot";
    return alreadyHandled(state, now, event, event.user, {
      kind: "nothing-to-revert",
      stepId: event.stepId,
      why,
    });
  }
  const busy = inFlight(state);
  if (busy) return refuse(state, now, event, event.user, busyNotice(state, busy, now));
  const history = state.history.map((r, i) =>
    i === idx ? { ...r, phase: "reverting" as const, beforeRevert: r.phase } : r,
  );
  return {
    state: { ...state, history },
    effects: [
      { type: "revert-change", stepId: run.stepId },
      update(run.stepId, "reverting", { kind: "reverting", by: event.user }),
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
  const note: ProposalNote = event.ok
    ? { kind: "reverted" }
    : event.message === undefined
      ? { kind: "revert-failed" }
      : { kind: "revert-failed", message: event.message };
  const detail = event.ok ? "reverted" : `revert failed: ${event.message ?? "unknown error"}`;
  return {
    state: { ...state, history },
    effects: [
      update(run.stepId, phase, note),
      audit(state, now, "bot", event, event.ok ? "ok" : "failed", detail),
    ],
  };
};

/**
 * "Next step" pressed on an ineffective step's verification: an approver may have the step the
 * playbook offers next proposed, while no other step is open. Allowed, it changes nothing yet: the
 * service builds the proposal from the table as it is now and proposes it.
 */
const onNextRequested: Handler<"next-requested"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  if (state.status !== "active" || state.current) {
    const notice: Notice =
      state.current?.stepId === event.stepId ? { kind: "already-proposed" } : { kind: "step-open" };
    return alreadyHandled(state, now, event, event.user, notice);
  }
  // Only the step the playbook offers next can be proposed from this button.
  const last = state.history[state.history.length - 1];
  const offered = last ? nextTarget(state, last.stepId, ctx) : undefined;
  if (offered?.kind !== "step" || offered.stepId !== event.stepId) {
    return alreadyHandled(state, now, event, event.user, { kind: "offer-changed" });
  }
  return { state, effects: [{ type: "offer-next-step", nextStepId: event.stepId, reason: "requested" }] };
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
  "next-requested": onNextRequested,
};

// ---------------------------------------------------------------------------------------------

/** The change is in place (by the bot or by hand): verification starts, first check one interval on. */
function changeInPlace(
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

/** How many people must approve a step: two for a risky one. */
export function approvalsNeeded(step: Step): number {
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

function busyNotice(state: WalkState, busy: StepRun, now: number): Notice {
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
  return refuse(state, now, event, event.user, {
    kind: "not-approver",
    table: state.table,
    reason: decision.reason,
    ...approverIds(ctx.policy),
  });
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
    return refuse(state, now, event, user, busyNotice(state, busy, now));
  }
  if (cur && cur.stepId !== stepId) {
    return alreadyHandled(state, now, event, user, { kind: "not-current", currentStepId: cur.stepId });
  }
  return undefined;
}

function noCurrent(state: WalkState, event: WalkEvent, now: number, user: string): TransitionResult {
  return alreadyHandled(state, now, event, user, { kind: "no-open-proposal" });
}

function walkOver(state: WalkState, event: WalkEvent, now: number): TransitionResult {
  const user = "user" in event ? event.user : undefined;
  if (!user) return ignored(state, now, event, "bot", `the walk is ${state.status}`);
  return alreadyHandled(state, now, event, user, {
    kind: "walk-over",
    table: state.table,
    status: state.status,
  });
}

function refuse(
  state: WalkState,
  now: number,
  event: WalkEvent,
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
function alreadyHandled(
  state: WalkState,
  now: number,
  event: WalkEvent,
  user: string,
  notice: Notice,
): TransitionResult {
  return refuse(state, now, event, user, notice, "ignored");
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

function ephemeral(user: string, notice: Notice): Effect {
  return { type: "post-ephemeral", user, notice };
}

function update(stepId: StepId, phase: StepRun["phase"], note: ProposalNote): Effect {
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
export function auditAction(event: WalkEvent): AuditEntry["action"] {
  return event.type === "next-requested" ? "propose" : event.type;
}

function lastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) {
    if (predicate(items[i] as T)) return i;
  }
  return -1;
}
