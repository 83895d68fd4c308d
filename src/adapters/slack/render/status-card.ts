// The root message of an incident thread. It is edited in place at every state change, so it alone
// tells a late reader where things stand: what broke, why, and what happens now.

import { slackWhen } from "../../render/times.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { context, header, section } from "./blocks.js";
import { formatDuration } from "./format.js";
import { STATE_EMOJI, STATE_LABELS } from "./labels.js";
import { escapeMrkdwn } from "./limits.js";
import type { StatusCardView } from "./view-models.js";

export type { StatusCardView } from "./view-models.js";

function headline(view: StatusCardView): string {
  const age = formatDuration(view.nowMs - view.openedAtMs);
  switch (view.state) {
    case "resolved":
      return `${view.table} — commits resumed`;
    case "stopped":
      return `${view.table} — playbook stopped after ${age}`;
    default:
      if (view.commitsFlowing !== undefined) {
        const last = view.commitsFlowing.lastCommitMs;
        const ago =
          last === undefined ? "" : ` (last commit ${formatDuration(Math.max(0, view.nowMs - last))} ago)`;
        return `${view.table} — alert fired, but commits are flowing${ago}`;
      }
      return `${view.table} — commits failing for ${formatDuration(view.nowMs - (view.stalledSinceMs ?? view.openedAtMs))}`;
  }
}

function statusLine(view: StatusCardView): string {
  const parts = [STATE_LABELS[view.state]];
  if (view.step !== undefined) {
    parts.push(`step ${view.step.index}${view.step.total === undefined ? "" : ` of ${view.step.total}`}`);
  }
  if (view.check !== undefined && view.state === "verifying") {
    parts.push(`check ${view.check.index} of ${view.check.total}`);
  }
  parts.push(`opened ${slackWhen(view.openedAtMs, view.nowMs)}`);
  parts.push(`updated ${slackWhen(view.nowMs, view.nowMs)}`);
  return parts.join(" · ");
}

function detailLines(view: StatusCardView): string[] {
  const lines: string[] = [];
  if (view.verdictLine !== undefined) lines.push(`*Verdict:* ${escapeMrkdwn(view.verdictLine)}`);
  if (view.causeLine !== undefined) lines.push(`*Cause:* ${escapeMrkdwn(view.causeLine)}`);
  if (view.resolution !== undefined) {
    lines.push(
      `*Fixed by:* ${escapeMrkdwn(view.resolution.fixedBy)}; commits resumed ${formatDuration(view.resolution.recoveredAfterMs)} after the change`,
    );
  }
  if (view.nowLine !== undefined) lines.push(`*Now:* ${escapeMrkdwn(view.nowLine)}`);
  else if (view.step !== undefined && view.state !== "resolved")
    lines.push(`*Now:* ${escapeMrkdwn(view.step.title)}`);
  return lines;
}

/** Blocks of the card alone, reused by App Home. */
export function statusCardBlocks(view: StatusCardView): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`${STATE_EMOJI[view.state]} ${headline(view)}`)];
  const lines = detailLines(view);
  if (lines.length > 0) blocks.push(section(lines.join("\n")));
  blocks.push(context(statusLine(view)));
  return blocks;
}

export function renderStatusCard(view: StatusCardView): SlackMessage {
  const text = `${STATE_EMOJI[view.state]} ${escapeMrkdwn(headline(view))} (${STATE_LABELS[view.state]})`;
  return { text, blocks: statusCardBlocks(view) };
}
