// The root message of an incident thread. It is edited in place at every state change, so it alone
// tells a late reader where things stand: what broke, why, and what happens now.

import type { IncidentState } from "../../../core/incident/model.js";
import { plural } from "../../../core/plural.js";
import type {
  CommitHealth,
  IncidentStory,
  StoryStep,
  StoryWriter,
  UnseenSource,
} from "../../../core/story/model.js";
import { pendingItems } from "../../../core/verification/open-items.js";
import { formatDuration } from "../../../core/words/duration.js";
import { CREDENTIAL_SETTING_WORDS, sourceSaid, sourceWords, stepWords } from "../../../core/words/labels.js";
import { recoveredAfterWords } from "../../../core/words/recovery.js";
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

/** The failing writer as people name it: "Flink job events-ingest (c7e1…) on eu-flink". */
export function writerWords(w: StoryWriter): string {
  const who =
    w.kind === "connect"
      ? `Kafka Connect connector ${w.id}`
      : `Flink job ${w.name ? `${w.name} (${w.id.slice(0, 4)}…)` : `${w.id.slice(0, 8)}…`}`;
  return `${who}${w.cluster ? ` on ${w.cluster}` : ""}`;
}

/** A step's title: the playbook's words when the story has them, else our own. */
export const titleOf = (step: Pick<StoryStep, "stepId" | "title">) => step.title ?? stepWords(step.stepId);
const quoted = (step: StoryStep) => `"${titleOf(step)}"`;

/** Neither resolved nor stopped: the card still offers decisions and counts the alert. */
const isOpen = (story: IncidentStory) => story.workflow !== "resolved" && story.workflow !== "stopped";

/** The writer commits (or is quiet by design): the headline must not speak of failing commits. */
const isFlowing = (story: IncidentStory) => story.health === "flowing" || story.health === "idle";

/** When the failing writer last committed; the headline counts from it. */
const stalledSinceMs = (story: IncidentStory) => (isFlowing(story) ? undefined : story.lastGoodCommitMs);

/** How a resolved incident was fixed: the step that gets the credit and how long commits took. */
function resolutionOf(story: IncidentStory) {
  const recovery = story.recovery;
  const fixedStep = story.steps.find((s) => s.stepId === recovery?.stepId);
  if (story.workflow !== "resolved" || !recovery || !fixedStep) return undefined;
  return {
    fixedBy: titleOf(fixedStep),
    recoveredAfterMs: recovery.afterChangeMs,
    credit: recovery.credit,
    byHand: fixedStep.byHand,
  };
}

function headline(story: IncidentStory, nowMs: number): string {
  return `${story.table} — ${ageWords(story, nowMs)}`;
}

/**
 * The state in words with its age, as the card's headline says it; `/iceberg status` and App Home
 * say the same, so every surface shows one age for an incident: "commits failing for 55 min"
 * counted from the failing writer's last good commit, or "open for 3 min, last good commit not
 * known" while no diagnosis has found that commit.
 */
export function ageWords(story: IncidentStory, nowMs: number): string {
  const age = formatDuration(nowMs - story.openedAtMs);
  switch (story.workflow) {
    case "resolved": {
      const open = pendingItems(story.openItems).length;
      // A writer that was committing all along did not resume: say what the thread says.
      const commits =
        resolutionOf(story)?.credit === "already-flowing" ? "commits flowing" : "commits resumed";
      return open === 0 ? commits : `${commits}, ${plural(open, "item")} open`;
    }
    case "stopped":
      return `playbook stopped after ${age}`;
    default: {
      if (isFlowing(story)) {
        const last = story.lastGoodCommitMs;
        const ago =
          last === undefined ? "" : ` (last commit ${formatDuration(Math.max(0, nowMs - last))} ago)`;
        // An idle writer is not committing: say it is quiet as expected, not that commits flow.
        if (story.health === "idle") return `alert fired, writer quiet by design${ago}`;
        return `alert fired, but commits are flowing${ago}`;
      }
      // The age of a failure is counted from the writer's last good commit. Before a diagnosis has
      // found it (or when the catalog did not answer), the card says only what it knows.
      const since = stalledSinceMs(story);
      if (since === undefined) return `open for ${age}, last good commit not known`;
      return `commits failing for ${formatDuration(nowMs - since)}`;
    }
  }
}

/**
 * "1 open item" beside the workflow while the incident is open (the resolved card says it in its
 * state instead): the card, App Home and `/iceberg status` count the same items at every step.
 */
export function openItemsWords(story: IncidentStory): string | undefined {
  const open = pendingItems(story.openItems).length;
  if (open === 0 || story.workflow === "resolved") return undefined;
  return plural(open, "open item");
}

/** "resolved", or "resolved with 1 open item" while the report leaves something for a person. */
export function stateLabel(story: IncidentStory): string {
  const open = story.workflow === "resolved" ? pendingItems(story.openItems).length : 0;
  return open === 0
    ? STATE_LABELS[story.workflow]
    : `${STATE_LABELS[story.workflow]} with ${plural(open, "open item")}`;
}

/** What happens now, as the card's "Now:" line says it. */
function nowLine(story: IncidentStory): string | undefined {
  let line: string | undefined;
  const step = story.step;
  if (story.workflow === "diagnosing") line = "reading the catalog, Flink, Kafka Connect and metrics";
  else if (story.workflow === "stalled")
    line =
      step?.state === "could-not-check"
        ? "the bot could not check the table; nothing is restarted or changed until it can; the thread is yours"
        : "no playbook step left to try; the thread is yours";
  else if (story.workflow === "stopped") line = "the playbook was stopped";
  else if (step && story.workflow !== "resolved") line = stepNow(step);
  else if (story.workflow === "awaiting-approval" && story.nextStep)
    line = `next step: "${story.nextStep.summary}"`;
  if (story.tableUnknown && story.workflow !== "resolved")
    return "not a table the catalog or BOT_CONFIG knows; closes when its alerts resolve";
  if (!isOpen(story)) return line;
  if (story.alerts.clearedAtMs !== undefined)
    return `${line ? `${line}; ` : ""}the alert cleared, waiting for the writer's commits to resume`;
  const firing = story.alerts.firing;
  if (firing !== undefined && firing > 0)
    return `${line ? `${line}; ` : ""}${plural(firing, "alert")} firing`;
  return line;
}

function stepNow(step: StoryStep): string {
  const name = quoted(step);
  switch (step.state) {
    case "awaiting-approval":
      return `waiting for approval of ${name}`;
    case "apply-failed":
      return `${name} did not go through; waiting for a decision`;
    case "applying":
      return `applying ${name}`;
    case "verifying":
      return step.readOnly
        ? `the bot is checking: ${name}`
        : `verifying ${name}: watching the writer's commits`;
    case "no-recovery":
      return `no recovery after ${step.checks.length} checks of ${name}; waiting for a decision`;
    case "could-not-check":
      return `the last check of ${name} could not read the writer's commits; waiting for a decision`;
    case "done":
      return step.readOnly ? `checked ${name}; waiting for the next step` : `${name} done`;
    case "skipped":
      return `${name} was skipped; waiting for a decision`;
    case "reverting":
      return `reverting ${name}`;
    case "reverted":
      return `${name} was reverted; waiting for a decision`;
    case "stopped":
      return `${name} was stopped`;
  }
}

function statusLine(story: IncidentStory, nowMs: number): string {
  const parts = [stateLabel(story)];
  const step = story.step;
  if (step !== undefined) parts.push(`step ${step.index}`);
  if (step?.check !== undefined && story.workflow === "verifying") {
    parts.push(`check ${step.check.index} of ${step.check.total}`);
  }
  const items = openItemsWords(story);
  if (items !== undefined) parts.push(items);
  const couldNotCheck = step?.state === "could-not-check";
  if ((step?.state === "no-recovery" || couldNotCheck) && story.workflow !== "resolved") {
    const checks = plural(step.checks.length, "check");
    // A check that could not read the snapshots saw nothing either way: never "no recovery".
    parts.push(couldNotCheck ? `could not check in ${checks}` : `no recovery after ${checks}`);
  }
  parts.push(`opened ${slackWhen(story.openedAtMs, nowMs)}`);
  parts.push(`updated ${slackWhen(nowMs, nowMs)}`);
  return parts.join(" · ");
}

/** "Flink job events-ingest (c7e1…) has not committed since 09:12 (55 min)": who, since when. */
function failingLine(story: IncidentStory, nowMs: number): string | undefined {
  if (story.health !== "failing" || story.writer === undefined || !isOpen(story)) return undefined;
  const who = escapeMrkdwn(writerWords(story.writer));
  const since = stalledSinceMs(story);
  if (since === undefined) return `*Failing:* ${who}`;
  return `*Failing:* ${who}, no good commit since ${slackWhen(since, nowMs)}`;
}

function detailLines(story: IncidentStory, nowMs: number): string[] {
  const lines: string[] = [];
  const failing = failingLine(story, nowMs);
  if (failing !== undefined) lines.push(failing);
  for (const refused of story.unseen.filter((u) => u.refusedBot)) lines.push(refusedLine(refused));
  for (const down of story.unseen.filter((u) => !u.refusedBot))
    lines.push(
      `*Did not answer:* ${escapeMrkdwn(sourceSaid(sourceWords(down.kind, down.source), down.reason))}`,
    );
  if (story.verdict !== undefined)
    lines.push(`*Verdict:* ${slackTimes(escapeMrkdwn(story.verdict.summary), nowMs)}`);
  if (story.cause !== undefined)
    lines.push(`*Cause:* ${slackTimes(escapeMrkdwn(story.cause.summary), nowMs)}`);
  const resolution = resolutionOf(story);
  if (resolution?.credit === "already-flowing") {
    lines.push(
      `*Commits were flowing:* the writer kept committing, so *${escapeMrkdwn(resolution.fixedBy)}* takes no credit for its commits`,
    );
  } else if (resolution !== undefined) {
    lines.push(
      `*Fixed by:* ${escapeMrkdwn(resolution.fixedBy)}; commits resumed ${recoveredAfterWords(resolution.recoveredAfterMs, resolution.byHand === true)}`,
    );
  }
  if (story.workflow === "resolved") {
    for (const item of story.openItems) {
      lines.push(
        item.doneBy === undefined
          ? `*Still open:* ${escapeMrkdwn(item.text)}`
          : `*Done:* ${escapeMrkdwn(item.text)} (<@${item.doneBy}>${item.doneAtMs === undefined ? "" : ` ${slackWhen(item.doneAtMs, nowMs)}`})`,
      );
    }
  }
  const now = nowLine(story);
  if (now !== undefined) lines.push(`*Now:* ${escapeMrkdwn(now)}`);
  else if (story.step !== undefined && story.workflow !== "resolved")
    lines.push(`*Now:* ${escapeMrkdwn(titleOf(story.step))}`);
  if (story.owner !== undefined)
    lines.push(`*Handled by:* ${mention(story.owner.user)} since ${slackWhen(story.owner.sinceMs, nowMs)}`);
  return lines;
}

/** A source that refused the bot: the bot's access to fix, and no word about the writer. */
function refusedLine(refused: UnseenSource): string {
  return `*Bot's access:* the ${escapeMrkdwn(sourceWords(refused.kind, refused.source))} refused the bot's credential (${escapeMrkdwn(refused.reason)}); renew it in ${CREDENTIAL_SETTING_WORDS[refused.kind]}. Until then the bot cannot see the writer's commits.`;
}

const DECISION_BUTTON_TEXT = { apply: "Review and apply", done: "Done by hand", revert: "Revert" } as const;

/** The decisions the thread offers, as the same buttons on the card. */
function decisionButtons(story: IncidentStory) {
  const decisions = isOpen(story) ? (story.step?.decisions ?? []) : [];
  return decisions.map((d) =>
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

/**
 * Blocks of the card alone, reused by App Home. `slackDelayedMs`: the longest any message of this
 * thread waited to reach Slack, when it was too long.
 */
export function statusCardBlocks(story: IncidentStory, nowMs: number, slackDelayedMs?: number): KnownBlock[] {
  const blocks: KnownBlock[] = [header(`${HEALTH_EMOJI[story.health]} ${headline(story, nowMs)}`)];
  const lines = detailLines(story, nowMs);
  if (lines.length > 0) blocks.push(section(lines.join("\n")));
  const step = story.step;
  if (story.workflow === "resolved" && pendingItems(story.openItems).length > 0 && step?.proposalId) {
    const itemAction = { incidentId: story.incidentId, stepId: step.stepId, proposalId: step.proposalId };
    blocks.push(actions([actionButton("Mark done", ACTION_IDS.itemDone, itemAction)], "open_items"));
  }
  if (slackDelayedMs !== undefined)
    blocks.push(
      context(
        `:hourglass: Messages of this thread reached Slack up to ${formatDuration(slackDelayedMs)} late (Slack was refusing or failing them); the times they show are when things happened.`,
      ),
    );
  // The decision the card names under "Now", one click away: the thread's own buttons; and
  // "I'm on it" while nobody handles the incident.
  const claim = isOpen(story) && !story.owner ? { incidentId: story.incidentId } : undefined;
  const elements = [
    ...decisionButtons(story),
    ...(claim ? [button("I'm on it", ACTION_IDS.claim, JSON.stringify(claim))] : []),
  ];
  if (elements.length > 0) blocks.push(actions(elements, "card_decision"));
  blocks.push(context(statusLine(story, nowMs)));
  return blocks;
}

export function renderStatusCard(story: IncidentStory, nowMs: number, slackDelayedMs?: number): SlackMessage {
  const text = `${HEALTH_EMOJI[story.health]} ${escapeMrkdwn(headline(story, nowMs))} (${stateLabel(story)})`;
  return { text, blocks: statusCardBlocks(story, nowMs, slackDelayedMs) };
}
