// A person made the change themselves and says so.

import { alreadyHandled, audit, changeInPlace, type Handler, openProposal } from "./shared.js";

export const onDoneByHand: Handler<"done-by-hand"> = (state, event, now, ctx) => {
  const cur = openProposal(state, event, now, ctx);
  if ("effects" in cur) return cur;
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
