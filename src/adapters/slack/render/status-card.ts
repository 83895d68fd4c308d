// The root message of an incident thread. It is edited in place at every state change, so it alone
// tells a late reader where things stand: what broke, why, and what happens now.

import type { IncidentState } from "../../../core/incident/model.js";
import { plural } from "../../../core/plural.js";
import type { CommitHealth } from "../../../core/story/model.js";
import { pendingItems } from "../../../core/verification/open-items.js";
import { formatDuration } from "../../../core/words/duration.js";
import { CREDENTIAL_SETTING_WORDS, sourceWords, stepWords } from "../../../core/words/labels.js";
import { recoveredAfterWords } from "../../../core/words/recovery.js";
import type { StatusCardView } from "../../../services/view-models.js";
import { slackTimes, slackWhen } from "../../render/times.js";
import { ACTION_IDS, actionButton } from "./action-value.js";
import type { KnownBlock, SlackMessage } from "./block-kit.js";
import { actions, button, context, header, section } from "./blocks.js";
import { escapeMrkdwn, mention } from "./limits.js";

// The words and emoji people see for an incident's state.
const STATE_LABELS: Record<IncidentState, string> = {
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

function headline(view: StatusCardView): string {
  return `${view.table} — ${ageWords(view)}`;
}

type CardFacts = Pick<
  StatusCardView,
  "state" | "openedAtMs" | "nowMs" | "stalledSinceMs" | "commitsFlowing" | "openItems" | "resolution"
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
      const open = pendingItems(view.openItems).length;
      // A writer that was committing all along did not resume: say what the thread says.
      const commits = view.resolution?.credit === "already-flowing" ? "commits flowing" : "commits resumed";
      return open === 0 ? commits : `${commits}, ${plural(open, "item")} open`;
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

/**
 * "1 open item" beside the workflow while the incident is open (the resolved card says it in its
 * state instead): the card, App Home and `/iceberg status` count the same items at every step.
 */
export function openItemsWords(view: Pick<StatusCardView, "state" | "openItems">): string | undefined {
  const open = pendingItems(view.openItems).length;
  if (open === 0 || view.state === "resolved") return undefined;
  return plural(open, "open item");
}

/** "resolved", or "resolved with 1 open item" while the report leaves something for a person. */
export function stateLabel(view: Pick<StatusCardView, "state" | "openItems">): string {
  const open = view.state === "resolved" ? pendingItems(view.openItems).length : 0;
  return open === 0
    ? STATE_LABELS[view.state]
    : `${STATE_LABELS[view.state]} with ${plural(open, "open item")}`;
}

/** "step 2 of 3", or "step 2" while the playbook's length is not known. */
export function stepPosition(step: NonNullable<StatusCardView["step"]>): string {
  return `step ${step.index}${step.total === undefined ? "" : ` of ${step.total}`}`;
}

function statusLine(view: StatusCardView): string {
  const parts = [stateLabel(view)];
  if (view.step !== undefined) parts.push(stepPosition(view.step));
  if (view.check !== undefined && view.state === "verifying") {
    parts.push(`check ${view.check.index} of ${view.check.total}`);
  }
  const items = openItemsWords(view);
  if (items !== undefined) parts.push(items);
  if (view.noRecoveryAfterChecks !== undefined && view.state !== "resolved") {
    const checks = plural(view.noRecoveryAfterChecks, "check");
    // A check that could not read the snapshots saw nothing either way: never "no recovery".
    parts.push(view.couldNotCheck ? `could not check in ${checks}` : `no recovery after ${checks}`);
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
  for (const refused of view.refusedBot ?? []) lines.push(refusedLine(refused));
  for (const down of view.downSources ?? []) lines.push(`*Did not answer:* ${escapeMrkdwn(down)}`);
  if (view.verdictLine !== undefined)
    lines.push(`*Verdict:* ${slackTimes(escapeMrkdwn(view.verdictLine), view.nowMs)}`);
  if (view.causeLine !== undefined)
    lines.push(`*Cause:* ${slackTimes(escapeMrkdwn(view.causeLine), view.nowMs)}`);
  if (view.resolution?.credit === "already-flowing") {
    lines.push(
      `*Commits were flowing:* the writer kept committing, so *${escapeMrkdwn(view.resolution.fixedBy)}* takes no credit for its commits`,
    );
  } else if (view.resolution !== undefined) {
    lines.push(
      `*Fixed by:* ${escapeMrkdwn(view.resolution.fixedBy)}; commits resumed ${recoveredAfterWords(view.resolution.recoveredAfterMs, view.resolution.byHand === true)}`,
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
  if (view.owner !== undefined)
    lines.push(
      `*Handled by:* ${mention(view.owner.user)} since ${slackWhen(view.owner.sinceMs, view.nowMs)}`,
    );
  return lines;
}

/** A source that refused the bot: the bot's access to fix, and no word about the writer. */
function refusedLine(refused: NonNullable<StatusCardView["refusedBot"]>[number]): string {
  return `*Bot's access:* the ${escapeMrkdwn(sourceWords(refused.kind, refused.source))} refused the bot's credential (${escapeMrkdwn(refused.reason)}); renew it in ${CREDENTIAL_SETTING_WORDS[refused.kind]}. Until then the bot cannot see the writer's commits.`;
}

const DECISION_BUTTON_TEXT = { apply: "Review and apply", done: "Done by hand", revert: "Revert" } as const;

/** The decisions the thread offers, as the same buttons on the card. */
function decisionButtons(view: StatusCardView) {
  return (view.decisions ?? []).map((d) =>
    actionButton(
      d.kind === "next"
        ? `Next step: ${d.title ?? stepWords(d.action.stepId)}`
        : DECISION_BUTTON_TEXT[d.kind],
      ACTION_IDS[d.kind],
      d.action,
      d.kind === "apply" || d.kind === "next" ? "primary" : undefined,
    ),
  );
}

/** Blocks of the card alone, reused by App Home. */
export function statusCardBlocks(view: StatusCardView): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`${HEALTH_EMOJI[view.health]} ${headline(view)}`)];
  const lines = detailLines(view);
  if (lines.length > 0) blocks.push(section(lines.join("\n")));
  if (view.state === "resolved" && pendingItems(view.openItems).length > 0 && view.itemAction) {
    blocks.push(actions([actionButton("Mark done", ACTION_IDS.itemDone, view.itemAction)], "open_items"));
  }
  if (view.slackDelayedMs !== undefined)
    blocks.push(
      context(
        `:hourglass: Messages of this thread reached Slack up to ${formatDuration(view.slackDelayedMs)} late (Slack was refusing or failing them); the times they show are when things happened.`,
      ),
    );
  // The decision the card names under "Now", one click away: the thread's own buttons; and
  // "I'm on it" while nobody handles the incident.
  const elements = [
    ...decisionButtons(view),
    ...(view.claimAction ? [button("I'm on it", ACTION_IDS.claim, JSON.stringify(view.claimAction))] : []),
  ];
  if (elements.length > 0) blocks.push(actions(elements, "card_decision"));
  blocks.push(context(statusLine(view)));
  return blocks;
}

export function renderStatusCard(view: StatusCardView): SlackMessage {
  const text = `${HEALTH_EMOJI[view.health]} ${escapeMrkdwn(headline(view))} (${stateLabel(view)})`;
  return { text, blocks: statusCardBlocks(view) };
}
