// The approved change carried out: started, landed, or failed.

import type { StepRun } from "../walk.js";
import { audit, changeInPlace, type Handler, ignored, update } from "./shared.js";

export const onApplyStarted: Handler<"apply-started"> = (state, event, now) => {
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

export const onApplySucceeded: Handler<"apply-succeeded"> = (state, event, now) => {
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
  const idx = state.history.findLastIndex((r) => r.stepId === event.stepId && r.phase === "stopped");
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

export const onApplyFailed: Handler<"apply-failed"> = (state, event, now) => {
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
