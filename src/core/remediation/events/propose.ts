// A step proposed (from a diagnosis, or by the Next step button).

import type { Effect, Notice, StepRun } from "../walk.js";
import {
  alreadyHandled,
  audit,
  findStep,
  type Handler,
  ignored,
  inFlight,
  notPermitted,
  offeredNext,
  update,
  verifyPlan,
} from "./shared.js";

export const onPropose: Handler<"propose"> = (state, event, now, ctx) => {
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

/**
 * "Next step" pressed on an ineffective step's verification: an approver may have the step the
 * playbook offers next proposed, while no other step is open. Allowed, it changes nothing yet: the
 * service builds the proposal from the table as it is now and proposes it.
 */
export const onNextRequested: Handler<"next-requested"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  if (state.status !== "active" || state.current) {
    const notice: Notice =
      state.current?.stepId === event.stepId ? { kind: "already-proposed" } : { kind: "step-open" };
    return alreadyHandled(state, now, event, event.user, notice);
  }
  // Only the step the playbook offers next can be proposed from this button.
  if (offeredNext(state, ctx) !== event.stepId) {
    return alreadyHandled(state, now, event, event.user, { kind: "offer-changed" });
  }
  return { state, effects: [{ type: "offer-next-step", nextStepId: event.stepId, reason: "requested" }] };
};
