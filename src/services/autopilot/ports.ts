// What the autopilot keeps in the shared store, seen by every process at once: the switch, each
// incident's plan and who claimed it first (the hold-off's end or a Hold), the changes made
// (budgets), the reverts (the fleet's self-stop) and shadow mode's tally.

import type { Refusal, SwitchState } from "../../core/autopilot/decide.js";
import type { StepId } from "../../core/ids.js";

/** What autopilot announced (or, in shadow mode, would have done) for an incident. */
export interface AutopilotPlan {
  incidentId: string;
  table: string;
  stepId: StepId;
  proposalId: string;
  policy: string;
  applyAtMs: number;
  shadow: boolean;
}

/** Who came first once a plan was announced: its firing, or a person's Hold. */
export type PlanClaim = { kind: "fired" } | { kind: "held"; by: string };

/** Shadow mode's tally for one step. */
export interface ShadowTally {
  stepId: StepId;
  /** Incidents where autopilot would have applied the step and people then acted. */
  would: number;
  /** Of those, where the first step people applied was this one. */
  matched: number;
  /** Of those, where this step is what fixed the incident. */
  fixed: number;
}

export interface AutopilotStorePort {
  switchState(): Promise<SwitchState>;
  setSwitch(state: SwitchState): Promise<void>;
  /** Saves the plan once; false when the incident has one already. */
  savePlan(plan: AutopilotPlan): Promise<boolean>;
  plan(incidentId: string): Promise<AutopilotPlan | undefined>;
  /** The first claim wins; a later one gets the winner back. */
  claim(incidentId: string, claim: PlanClaim): Promise<PlanClaim>;
  claimOf(incidentId: string): Promise<PlanClaim | undefined>;
  /** Marks the walk handed back to people; false when it was already. */
  handBack(incidentId: string): Promise<boolean>;
  handedBack(incidentId: string): Promise<boolean>;
  /** Counts one autonomous change (once per incident and proposal). */
  recordChange(table: string, member: string, atMs: number): Promise<void>;
  changesSince(table: string | undefined, sinceMs: number): Promise<number>;
  /** Counts one revert (once per member); returns how many fell within the window. */
  recordRevert(member: string, atMs: number, windowMs: number): Promise<number>;
  /** Counts a judged shadow plan once per incident. */
  judgeShadow(incidentId: string, stepId: StepId, matched: boolean, fixed: boolean): Promise<void>;
  shadowTally(): Promise<ShadowTally[]>;
  /** Remembers why the last decision for an incident refused (shown on App Home, counted). */
  noteRefusal(incidentId: string, refusal: Refusal): Promise<void>;
}
