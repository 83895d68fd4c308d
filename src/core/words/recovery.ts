// What recovery minutes count from, in one wording for the thread's recovery message, the card and
// the postmortem: a change the bot made counts from the change; one done by hand from its proposal
// (core/verification/recovery.ts says why), and the words say which.

import { formatDuration } from "./duration.js";

/** "4 min after the change", "4 min after the proposal (done by hand)". */
export function recoveredAfterWords(ms: number, byHand: boolean): string {
  return `${formatDuration(ms)} after ${byHand ? "the proposal (done by hand)" : "the change"}`;
}
