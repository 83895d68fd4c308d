// Undoing a change the bot made: requested, then done or failed.

import type { ProposalNote } from "../walk.js";
import {
  alreadyHandled,
  audit,
  busyNotice,
  type Handler,
  ignored,
  inFlight,
  isRevertable,
  notPermitted,
  refuse,
  update,
} from "./shared.js";

export const onRevertRequested: Handler<"revert-requested"> = (state, event, now, ctx) => {
  const denied = notPermitted(state, event, now, ctx);
  if (denied) return denied;
  const idx = state.history.findLastIndex((r) => r.stepId === event.stepId);
  const run = state.history[idx];
  if (!run || !isRevertable(run) || !["ineffective", "stopped"].includes(run.phase)) {
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

export const onReverted: Handler<"reverted"> = (state, event, now) => {
  const idx = state.history.findLastIndex((r) => r.stepId === event.stepId && r.phase === "reverting");
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
