// The autopilot's words, one place for the thread, App Home, the channel and the command line:
// why it left a step to people, what it will do and when, and how its shadow compared.

import type { Refusal } from "../autopilot/decide.js";
import type { StepId } from "../ids.js";
import { plural } from "../plural.js";
import { utcTime } from "./clock.js";
import { sourceWords, stepWords } from "./labels.js";

export function refusalWords(refusal: Refusal): string {
  switch (refusal.kind) {
    case "off":
      return "autopilot is off in BOT_CONFIG";
    case "switched-off":
      return "autopilot was switched off with /iceberg autopilot off";
    case "self-stopped":
      return "autopilot stopped itself after too many reverts; /iceberg autopilot on starts it again";
    case "table-not-in-policy":
      return "no policy line names this table";
    case "no-policy":
      return "no policy line names this step for this table";
    case "step-not-marked":
      return "the playbook does not mark this step reversible and low risk";
    case "outside-hours":
      return `policy ${refusal.policy} allows changes only between ${refusal.hours} UTC`;
    case "table-budget":
      return `policy ${refusal.policy} allows ${plural(refusal.perDay, "autonomous change")} per table per day, already made`;
    case "fleet-budget":
      return refusal.perHour === 1
        ? "the fleet's one autonomous change this hour is made"
        : `the fleet's ${refusal.perHour} autonomous changes this hour are made`;
    case "verdict-not-selecting":
      return "the diagnosis is not one this step is meant for";
    case "source-unseen":
      return `the bot could not read the ${refusal.sources.map((s) => sourceWords(s)).join(", the ")}, which this step depends on`;
    case "unknown-commit":
      return "whether the writer's last commit landed is not known yet";
    case "in-walk":
      return "people are already working this table's walk";
    case "failed-before":
      return "this step did not help the last time on this table";
    case "handed-back":
      return "autopilot already handed this incident to people";
  }
}

/**
 * The thread's one line when autopilot leaves a proposed step to people: "Autopilot leaves raise
 * commit retries to you: policy night-retries allows changes only between 22:00-06:00 UTC."
 */
export function leftToPeopleWords(stepId: StepId, refusal: Refusal): string {
  return `Autopilot leaves ${stepWords(stepId)} to you: ${refusalWords(refusal)}.`;
}

/** Whether the thread hears of a refusal: a table no policy line covers is none of autopilot's business. */
export function saysRefusal(refusal: Refusal): boolean {
  return refusal.kind !== "table-not-in-policy";
}

/** The step an announcement names and the policy line it acts under, with the line's place in BOT_CONFIG. */
export interface PolicyStep {
  stepId: StepId;
  policy: string;
  line?: string;
}

/** "Autopilot will apply raise commit retries under policy night-retries (bot.yaml:12) at 03:05 UTC." */
export function plannedWords(input: PolicyStep & { applyAtMs: number }): string {
  const where = input.line ? ` (${input.line})` : "";
  return `Autopilot will apply ${stepWords(input.stepId)} under policy ${input.policy}${where} at ${utcTime(input.applyAtMs)}, unless someone presses Hold. The follow-up checks judge the failing writer's own commits; if it does not recover, the change is reverted and the walk comes back to you.`;
}

/** How an announcement ended: the words its edit shows once Hold and Apply now are gone. */
export type AutopilotFate =
  | { kind: "applied" }
  | { kind: "applied-now"; by: string }
  | { kind: "held"; by: string }
  | { kind: "handed-back"; reason: string };

/**
 * "Autopilot applied raise commit retries under policy night-retries (bot.yaml:12) when the
 * hold-off ended." Who pressed Apply now or Hold is added by the adapter, as the channel shows them.
 */
export function settledWords(input: PolicyStep & { fate: AutopilotFate }): string {
  const step = stepWords(input.stepId);
  const under = `under policy ${input.policy}${input.line ? ` (${input.line})` : ""}`;
  switch (input.fate.kind) {
    case "applied":
      return `Autopilot applied ${step} ${under} when the hold-off ended.`;
    case "applied-now":
      return `Autopilot applied ${step} ${under} before the hold-off ended: Apply now was pressed.`;
    case "held":
      return `Held: autopilot will not apply ${step}. It waits for an approver as usual.`;
    case "handed-back":
      return `Autopilot left ${step} to people: ${input.fate.reason}.`;
  }
}

/** Why an announced step went to people without autopilot: they acted on it first. */
export function peopleFirstWords(): string {
  return "people acted on this step first";
}

export function switchedWords(action: "on" | "off"): string {
  return action === "off"
    ? "Autopilot is off for every table: announced steps are not applied and wait for people."
    : "Autopilot is on again for the tables and steps its policy lines name.";
}

export function notApproverWords(): string {
  return "Only an approver (BOT_CONFIG defaults.approvers) may switch autopilot on or off.";
}

/** "Autopilot: mode on, switch on." with what that means. */
export function statusWords(mode: "off" | "shadow" | "on", state: "on" | "off" | "self-stopped"): string {
  const switchWords = state === "self-stopped" ? "stopped itself after too many reverts" : state;
  const does =
    mode === "off"
      ? "it does nothing"
      : mode === "shadow"
        ? "it applies nothing and records what it would have done"
        : state === "on"
          ? "it applies the steps its policy lines allow"
          : "it applies nothing until switched on";
  return `Autopilot: mode ${mode} in BOT_CONFIG, switch ${switchWords}; ${does}.`;
}

export function declinedWords(reason: string): string {
  return `Autopilot did not apply the step it announced: ${reason}. It waits for an approver as usual.`;
}

export function revertFailedWords(stepId: StepId): string {
  return `Autopilot could not revert ${stepWords(stepId)}; the change is still in place. The walk is yours from here: use Revert on the step, or the next step.`;
}

export function revertedWords(stepId: StepId, next: StepId | undefined): string {
  const back = next
    ? ` The next step, ${stepWords(next)}, is proposed for a person to approve.`
    : " No further step is offered.";
  return `Autopilot reverted ${stepWords(stepId)}: the writer did not recover after its checks.${back} The walk is yours from here.`;
}

export function selfStoppedWords(count: number, windowMinutes: number): string {
  return `Autopilot stopped itself for every table: ${count} of its changes were reverted within ${windowMinutes} min. Steps wait for people again; an approver can start it with /iceberg autopilot on.`;
}

/** "raise commit retries: 4 of 5 agreed (80%), fixed 3" for App Home and the shadow report. */
export function agreementWords(stepId: StepId, would: number, matched: number, fixed: number): string {
  const rate =
    would === 0
      ? "no incident yet"
      : `${matched} of ${would} agreed (${Math.round((matched / would) * 100)}%)`;
  return `${stepWords(stepId)}: ${rate}, fixed ${fixed}`;
}
