// The words and emoji people see for an incident's state, and how people are mentioned. Findings,
// steps and sources are named by the core's words (src/core/words/labels.ts).

import type { IncidentState } from "../../../core/incident/model.js";
import type { CommitHealth } from "../../../core/story/model.js";
import { escapeMrkdwn } from "./limits.js";

export const STATE_LABELS: Record<IncidentState, string> = {
  open: "open",
  diagnosing: "diagnosing",
  "awaiting-approval": "waiting for approval",
  applying: "applying",
  verifying: "verifying",
  resolved: "resolved",
  stalled: "stalled",
  stopped: "stopped",
};

/**
 * The card's colour: the failing writer's commit health and nothing else (red failing, green
 * flowing, blue idle by design, grey unknown). The workflow is said in words beside it.
 */
export const HEALTH_EMOJI: Record<CommitHealth, string> = {
  failing: ":red_circle:",
  flowing: ":large_green_circle:",
  idle: ":large_blue_circle:",
  unknown: ":white_circle:",
};

/** A Slack user (U…/W…) or user group (S…) id as a mention; anything else as escaped text. */
export function mention(id: string): string {
  if (/^[UW][A-Z0-9]+$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]+$/.test(id)) return `<!subteam^${id}>`;
  return escapeMrkdwn(id);
}
