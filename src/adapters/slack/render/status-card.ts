// The root message of an incident thread. It is edited in place at every state change, so it alone
// tells a late reader where things stand: what broke, why, and what happens now.

import { formatDuration } from "../../../core/words/duration.js";
import { slackTimes, slackWhen } from "../../render/times.js";
import { ACTION_IDS, encodeActionValue } from "./action-value.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { context, header, section } from "./blocks.js";
import { STATE_EMOJI, STATE_LABELS } from "./labels.js";
import { escapeMrkdwn } from "./limits.js";
import type { StatusCardView } from "./view-models.js";

export type { StatusCardView } from "./view-models.js";

function headline(view: StatusCardView): string {
  return `${view.table} — ${ageWords(view)}`;
}

type CardFacts = Pick<
  StatusCardView,
  "state" | "openedAtMs" | "nowMs" | "stalledSinceMs" | "commitsFlowing" | "openItems"
>;

/**
 * The state in words with its age, as the card's headline says it; `/iceberg status` and App Home
 * say the same, so every surface shows one age for an incident: "commits failing for 55 min"
 * counted from the failing writer's last good commit, or "open for 3 min, last good commit not
 * known" while no diagnosis has found that commit.
 */
export function ageWords(view: CardFacts): string {
  const age = formatDuration(view.nowMs - view.openedAtMs);
  switch (view.state) {
    case "resolved": {
      const open = pendingCount(view);
      return open === 0 ? "commits resumed" : `commits resumed, ${itemsWord(open)} open`;
    }
    case "stopped":
      return `playbook stopped after ${age}`;
    default:
      if (view.commitsFlowing !== undefined) {
        const last = view.commitsFlowing.lastCommitMs;
        const ago =
          last === undefined ? "" : ` (last commit ${formatDuration(Math.max(0, view.nowMs - last))} ago)`;
        // An idle writer is not committing: say it is quiet as expected, not that commits flow.
        if (view.commitsFlowing.quietByDesign) return `alert fired, writer quiet by design${ago}`;
        return `alert fired, but commits are flowing${ago}`;
      }
      // The age of a failure is counted from the writer's last good commit. Before a diagnosis has
      // found it (or when the catalog did not answer), the card says only what it knows.
      if (view.stalledSinceMs === undefined) return `open for ${age}, last good commit not known`;
      return `commits failing for ${formatDuration(view.nowMs - view.stalledSinceMs)}`;
  }
}

function pendingCount(view: Pick<StatusCardView, "state" | "openItems">): number {
  return view.state === "resolved" ? (view.openItems ?? []).filter((i) => i.doneBy === undefined).length : 0;
}

const itemsWord = (n: number) => `${n} item${n === 1 ? "" : "s"}`;

/** "resolved", or "resolved with 1 open item" while the report leaves something for a person. */
export function stateLabel(view: Pick<StatusCardView, "state" | "openItems">): string {
  const open = pendingCount(view);
  return open === 0
    ? STATE_LABELS[view.state]
    : `${STATE_LABELS[view.state]} with ${open} open item${open === 1 ? "" : "s"}`;
}

function statusLine(view: StatusCardView): string {
  const parts = [stateLabel(view)];
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

/** "Flink job events-ingest (c7e1…) has not committed since 09:12 (55 min)": who, since when. */
function failingLine(view: StatusCardView): string | undefined {
  if (view.failingWriter === undefined || view.commitsFlowing !== undefined) return undefined;
  if (view.state === "resolved" || view.state === "stopped") return undefined;
  const who = escapeMrkdwn(view.failingWriter);
  if (view.stalledSinceMs === undefined) return `*Failing:* ${who}`;
  return `*Failing:* ${who}, no good commit since ${slackWhen(view.stalledSinceMs, view.nowMs)}`;
}

function detailLines(view: StatusCardView): string[] {
  const lines: string[] = [];
  const failing = failingLine(view);
  if (failing !== undefined) lines.push(failing);
  for (const down of view.downSources ?? []) lines.push(`*Did not answer:* ${escapeMrkdwn(down)}`);
  if (view.verdictLine !== undefined)
    lines.push(`*Verdict:* ${slackTimes(escapeMrkdwn(view.verdictLine), view.nowMs)}`);
  if (view.causeLine !== undefined)
    lines.push(`*Cause:* ${slackTimes(escapeMrkdwn(view.causeLine), view.nowMs)}`);
  if (view.resolution !== undefined) {
    lines.push(
      `*Fixed by:* ${escapeMrkdwn(view.resolution.fixedBy)}; commits resumed ${formatDuration(view.resolution.recoveredAfterMs)} after the change`,
    );
  }
  if (view.state === "resolved") {
    for (const item of view.openItems ?? []) {
      lines.push(
        item.doneBy === undefined
          ? `*Still open:* ${escapeMrkdwn(item.text)}`
          : `*Done:* ${escapeMrkdwn(item.text)} (<@${item.doneBy}>${item.doneAtMs === undefined ? "" : ` ${slackWhen(item.doneAtMs, view.nowMs)}`})`,
      );
    }
  }
  if (view.nowLine !== undefined) lines.push(`*Now:* ${escapeMrkdwn(view.nowLine)}`);
  else if (view.step !== undefined && view.state !== "resolved")
    lines.push(`*Now:* ${escapeMrkdwn(view.step.title)}`);
  return lines;
}

/** Red only while commits fail: a table whose commits flow is green, whatever the alert said. */
export function cardEmoji(view: Pick<StatusCardView, "state" | "commitsFlowing">): string {
  if (view.commitsFlowing !== undefined && view.state !== "resolved" && view.state !== "stopped")
    return ":large_green_circle:";
  return STATE_EMOJI[view.state];
}

/** Blocks of the card alone, reused by App Home. */
export function statusCardBlocks(view: StatusCardView): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`${cardEmoji(view)} ${headline(view)}`)];
  const lines = detailLines(view);
  if (lines.length > 0) blocks.push(section(lines.join("\n")));
  if (pendingCount(view) > 0 && view.itemAction) {
    blocks.push({
      type: "actions",
      block_id: "open_items",
      elements: [
        {
          type: "button",
          text: { type: "plain_text", text: "Mark done" },
          action_id: ACTION_IDS.itemDone,
          value: encodeActionValue(view.itemAction),
        },
      ],
    });
  }
  if (view.slackDelayedMs !== undefined)
    blocks.push(
      context(
        `:hourglass: Messages of this thread reached Slack up to ${formatDuration(view.slackDelayedMs)} late (Slack was refusing or failing them); the times they show are when things happened.`,
      ),
    );
  if (view.decision && view.state === "awaiting-approval") {
    // The decision the card names under "Now", one click away: the proposal's own button.
    const apply = view.decision.kind === "apply";
    blocks.push({
      type: "actions",
      block_id: "card_decision",
      elements: [
        {
          type: "button",
          text: { type: "plain_text", text: apply ? "Review and apply" : "Done by hand" },
          action_id: apply ? ACTION_IDS.apply : ACTION_IDS.done,
          value: encodeActionValue(view.decision.action),
          ...(apply ? { style: "primary" as const } : {}),
        },
      ],
    });
  }
  blocks.push(context(statusLine(view)));
  return blocks;
}

export function renderStatusCard(view: StatusCardView): SlackMessage {
  const text = `${cardEmoji(view)} ${escapeMrkdwn(headline(view))} (${stateLabel(view)})`;
  return { text, blocks: statusCardBlocks(view) };
}
