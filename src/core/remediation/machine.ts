// The playbook walk as a pure state machine. Slack buttons, queue jobs and follow-up checks all
// become events; the services carry out the returned effects. Idempotency lives here: a repeated
// event (double click, Slack retry, duplicate delayed job) changes nothing and applies nothing.
// Each event's handler lives in events/; this file only dispatches.

import { onApplyFailed, onApplyStarted, onApplySucceeded } from "./events/apply.js";
import { onApprove } from "./events/approve.js";
import { onDoneByHand } from "./events/by-hand.js";
import { onCheck } from "./events/check.js";
import { onNextRequested, onPropose } from "./events/propose.js";
import { onReverted, onRevertRequested } from "./events/revert.js";
import { alreadyHandled, type Handler, ignored } from "./events/shared.js";
import { onSkip } from "./events/skip.js";
import { onStop } from "./events/stop.js";
import type { MachineContext, RemediationEvent, TransitionResult, WalkState } from "./walk.js";

export function transition(
  state: WalkState,
  event: RemediationEvent,
  now: number,
  ctx: MachineContext,
): TransitionResult {
  if (state.status !== "active" && !AFTER_END.has(event.type)) {
    return walkOver(state, event, now);
  }
  // Each entry takes only its own event type, which TypeScript cannot pair with the union here.
  const handler = HANDLERS[event.type] as Handler<RemediationEvent["type"]>;
  return handler(state, event, now, ctx);
}

/**
 * Events still meaningful after the walk ended (undoing a change, finishing one in flight), and a
 * request for the next step, which says itself why an ended walk offers none.
 */
const AFTER_END = new Set<RemediationEvent["type"]>([
  "revert-requested",
  "reverted",
  "apply-succeeded",
  "apply-failed",
  "next-requested",
]);

const HANDLERS: { [T in RemediationEvent["type"]]: Handler<T> } = {
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

function walkOver(state: WalkState, event: RemediationEvent, now: number): TransitionResult {
  const user = "user" in event ? event.user : undefined;
  if (!user) return ignored(state, now, event, "bot", `the walk is ${state.status}`);
  return alreadyHandled(state, now, event, user, {
    kind: "walk-over",
    table: state.table,
    status: state.status,
  });
}
