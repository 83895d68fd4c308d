// The walk stopped by a person.

import type { Effect } from "../walk.js";
import { audit, type Handler, notPermitted, refuse, retire, update } from "./shared.js";

export const onStop: Handler<"stop"> = (state, event, now, ctx) => {
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
