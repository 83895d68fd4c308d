// A proposed step skipped: the walk moves on.

import type { Effect } from "../walk.js";
import { audit, type Handler, moveOn, openProposal, refuse, retire, update } from "./shared.js";

export const onSkip: Handler<"skip"> = (state, event, now, ctx) => {
  const cur = openProposal(state, event, now, ctx);
  if ("effects" in cur) return cur;
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
