// From a chosen step to the report's next step: the change comes from the one change builder
// (change.ts), filled with the table's current values so the proposal can show a real diff.

import type { NextStep } from "../report/schema.js";
import { type ChangeFacts, isAutomatic, proposeChange } from "./change.js";
import type { Playbook, Step } from "./schema.js";

/** The report's nextStep for a step, or undefined when no variant fits this writer. */
export function buildNextStep(playbook: Playbook, step: Step, facts: ChangeFacts): NextStep | undefined {
  const change = proposeChange(step, facts);
  if (!change) return undefined;
  return {
    id: step.id,
    playbook: playbook.id,
    summary: step.title,
    change,
    automatic: isAutomatic(step, change),
  };
}
