// When a change counts from, and how long the writer took to commit after it: one measure for
// every surface that states recovery minutes (the verification message, the card, the history
// and the postmortem), so none of them can tell a different number.
//
// A change the bot made counts from when its apply started: the catalog may take the change, and
// the writer commit after it, before the bot records it applied. A change done by hand counts from when
// its step was proposed: the person did the work before pressing Done by hand, and the bot cannot
// know when, so a commit made between the proposal and the press is the change's, not ignored.

import type { RemediationRecord } from "../remediation/record.js";
import type { StepRun } from "../remediation/walk.js";

/** The writer's first commit after a step's change, and whether the change earned it, as stored. */
export type Recovery = NonNullable<RemediationRecord["recovery"]>;

/** When a step's change counts from, for its follow-up checks and its recovery time. */
export function changeTimeOf(run: Pick<StepRun, "changeAtMs" | "appliedAtMs" | "proposedAtMs">): number {
  return run.changeAtMs ?? run.appliedAtMs ?? run.proposedAtMs;
}

/** A change a person made and marked done, rather than one the bot applied. */
export function madeByHand(run: Pick<StepRun, "appliedBy">): boolean {
  return run.appliedBy !== undefined && run.appliedBy !== "bot";
}

/** From the change to the writer's first commit after it; never negative. */
export function recoveryAfterMs(recovery: Pick<Recovery, "atMs" | "changeAtMs">): number {
  return Math.max(0, recovery.atMs - recovery.changeAtMs);
}
