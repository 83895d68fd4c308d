// A follow-up check of the writer after a change.

import {
  type CheckRecord,
  checkOutcome,
  type Effect,
  type MachineContext,
  type StepRun,
  type TransitionResult,
  type WalkState,
} from "../walk.js";
import {
  audit,
  type EventOf,
  type Handler,
  ignored,
  isRevertable,
  moveOn,
  retire,
  update,
} from "./shared.js";

export const onCheck: Handler<"check"> = (state, event, now, ctx) => {
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
    checksTotal,
    check: record,
  };
  if (outcome === "recovered") {
    return {
      state: { ...retire(state, checked, "recovered", now), status: "resolved", endedAtMs: now },
      effects: [
        verification,
        update(cur.stepId, "recovered", { kind: "recovered" }),
        { type: "resolve-incident", stepId: cur.stepId },
        checkAudit(state, now, event, `recovered after ${cur.stepId}`),
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
  return ineffective(state, checked, event, verification, now, ctx);
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
      checkAudit(state, now, event, `${checked.stepId} could not be checked (${sources || record.detail})`),
      { type: "walk-ended", outcome: "stalled", afterStepId: checked.stepId, unseen },
    ],
  };
}

/** The last check saw no recovery: the step did not help, and the walk moves on. */
function ineffective(
  state: WalkState,
  checked: StepRun,
  event: EventOf<"check">,
  verification: Effect,
  now: number,
  ctx: MachineContext,
): TransitionResult {
  const readOnly = checked.change.kind === "read-only-check";
  const effects: Effect[] = [
    verification,
    update(checked.stepId, "ineffective", {
      kind: "ineffective",
      checks: event.checkIndex,
      revertable: isRevertable(checked),
      ...(readOnly ? { readOnly: true } : {}),
    }),
    checkAudit(
      state,
      now,
      event,
      readOnly
        ? `${checked.stepId} checked: no new commit from the writer`
        : `${checked.stepId} ineffective after ${checked.checksTotal} checks`,
    ),
  ];
  return moveOn(retire(state, checked, "ineffective", now), checked.stepId, "ineffective", effects, now, ctx);
}

function checkAudit(state: WalkState, now: number, event: EventOf<"check">, detail: string): Effect {
  return audit(state, now, "bot", event, "ok", detail);
}
