// The words and emoji people see for an incident's state, and how people are mentioned. Findings,
// steps and sources are named by the core's words (src/core/words/labels.ts).

import { escapeMrkdwn } from "./limits.js";
import type { IncidentState } from "./view-models.js";

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

export const STATE_EMOJI: Record<IncidentState, string> = {
  open: ":red_circle:",
  diagnosing: ":mag:",
  "awaiting-approval": ":large_yellow_circle:",
  applying: ":gear:",
  verifying: ":hourglass_flowing_sand:",
  resolved: ":white_check_mark:",
  stalled: ":warning:",
  stopped: ":octagonal_sign:",
};

/** A Slack user (U…/W…) or user group (S…) id as a mention; anything else as escaped text. */
export function mention(id: string): string {
  if (/^[UW][A-Z0-9]+$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]+$/.test(id)) return `<!subteam^${id}>`;
  return escapeMrkdwn(id);
}
