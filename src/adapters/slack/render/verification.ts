// The follow-up message after a change: posted once and edited at every check, then showing the
// outcome. Recovered means the writer's own snapshots resumed, not that an alert went quiet.

import type { StepId } from "../../../core/ids.js";
import { groupDigits } from "../../../core/plural.js";
import { formatDuration } from "../../../core/words/duration.js";
import { stepWords } from "../../../core/words/labels.js";
import { recoveredAfterWords } from "../../../core/words/recovery.js";
import type { VerificationView, WriterRef } from "../../../services/view-models.js";
import { slackWhen } from "../../render/times.js";
import { ACTION_IDS, actionButton } from "./action-value.js";
import type { Button, KnownBlock, SlackMessage } from "./block-kit.js";
import { actions, context, section } from "./blocks.js";
import { escapeCode, escapeMrkdwn } from "./limits.js";
import { renderRevertButton } from "./proposal.js";
import { unseenWords } from "./walk-notice.js";

/** Long hex ids are recognisable by their first characters: "4f2a…". */
export function shortId(id: string, keep = 4): string {
  return id.length <= keep + 2 ? id : `${id.slice(0, keep)}…`;
}

function writerName(writer: WriterRef): string {
  if (writer.kind === "connector") return `connector \`${escapeCode(writer.id)}\``;
  // "orders-ingest (d0d3…)": the name people know, the short id that tells twins apart.
  return writer.name
    ? `${escapeMrkdwn(writer.name)} (${escapeMrkdwn(shortId(writer.id))})`
    : `job ${escapeMrkdwn(shortId(writer.id))}`;
}

const checkAt = (view: VerificationView) => `check ${view.check.index} of ${view.check.total}`;

/** "check 2 of 6: no new snapshot from job 4f2a… yet; elapsedSecondsSinceLastSuccessfulCommit 3,420 s and rising". */
function checkLine(view: VerificationView): string {
  const parts: string[] = [];
  const latest = view.latest ?? {};
  const snapshot = latest.newSnapshotId;
  const unseen = latest.unseen ?? [];
  // A check that could not read the snapshots says so; it never reports "no new snapshot".
  for (const u of unseen) parts.push(`could not read ${unseenWords(u)}`);
  if (!unseen.some((u) => u.source === "catalog" || u.source === "table"))
    parts.push(
      snapshot === undefined || snapshot === null
        ? `no new snapshot from ${writerName(view.writer)} yet`
        : `new snapshot \`${escapeCode(snapshot)}\` from ${writerName(view.writer)}`,
    );
  // With the snapshots unread, a commit age from the writer's metrics would be a claim about them.
  if (latest.elapsedSecondsSinceLastSuccessfulCommit !== undefined && unseen.length === 0) {
    const trend =
      latest.trend === undefined ? "" : latest.trend === "steady" ? " and steady" : ` and ${latest.trend}`;
    parts.push(
      `elapsedSecondsSinceLastSuccessfulCommit ${groupDigits(Math.round(latest.elapsedSecondsSinceLastSuccessfulCommit))} s${trend}`,
    );
  }
  if (latest.connectorState !== undefined) parts.push(`connector ${escapeMrkdwn(latest.connectorState)}`);
  return `${checkAt(view)}: ${parts.join("; ")}`;
}

/** Where the checks count commits from; a change done by hand dates from its proposal. */
function countsFromLine(view: VerificationView, nowMs: number): string | undefined {
  const from = view.countsFrom;
  if (!from?.byHand) return undefined;
  return `done by hand: commits are counted from the proposal at ${slackWhen(from.atMs, nowMs)}, since the bot cannot see when the work was done`;
}

function nextButton(view: VerificationView, next: { stepId: StepId; title: string }): Button {
  // stepId names the step to propose next; proposalId is the one that did not help.
  const value = { incidentId: view.incidentId, stepId: next.stepId, proposalId: view.proposalId };
  return actionButton(`Next step: ${next.title}`, ACTION_IDS.next, value, "primary");
}

export function renderVerification(view: VerificationView): SlackMessage {
  const title = stepWords(view.stepId);
  const table = escapeCode(view.table);
  const outcome = view.outcome;
  const blocks: KnownBlock[] = [];
  const countsFrom = countsFromLine(view, view.countsFrom?.atMs ?? 0);
  let text: string;
  if (outcome === undefined) {
    blocks.push(section(`:hourglass_flowing_sand: *Verifying ${title}* on \`${table}\`\n${checkLine(view)}`));
    const notes = [
      ...(view.intervalSeconds !== undefined && view.check.index < view.check.total
        ? [`next check in ${formatDuration(view.intervalSeconds * 1000)}`]
        : []),
      ...(countsFrom ? [countsFrom] : []),
    ];
    if (notes.length > 0) blocks.push(context(notes.join(" · ")));
    text = `Verifying ${title} on ${escapeMrkdwn(view.table)}: ${checkAt(view)}`;
  } else if (outcome.kind === "recovered" && outcome.credit === "already-flowing") {
    // The writer was committing before the change: the step gets no credit, what is left is the work.
    blocks.push(
      section(
        `:information_source: *Commits were flowing*${view.landedTwice ? "; one unknown commit landed twice" : ""}: ` +
          `${writerName(view.writer)} was already committing to \`${table}\` before *${title}*, so the step did not bring commits back.\n` +
          `Its next snapshot \`${escapeCode(outcome.snapshotId)}\` at ${slackWhen(outcome.committedAtMs, outcome.committedAtMs)}.`,
      ),
    );
    blocks.push(...stillToDo(view));
    blocks.push(context(`seen at ${checkAt(view)}`));
    text = `${escapeMrkdwn(view.table)}: commits were flowing before ${title}`;
  } else if (outcome.kind === "recovered") {
    blocks.push(
      section(
        `:white_check_mark: *Recovered:* commits on \`${table}\` resumed after *${title}*\n` +
          `First new snapshot \`${escapeCode(outcome.snapshotId)}\` from ${writerName(view.writer)} at ${slackWhen(outcome.committedAtMs, outcome.committedAtMs)}; ` +
          `${recoveredAfterWords(outcome.recoveredAfterMs, view.countsFrom?.byHand === true)}.`,
      ),
    );
    // Not resolved silently: what the report left for a person is the next thing to do.
    blocks.push(...stillToDo(view));
    blocks.push(context(`confirmed at ${checkAt(view)}`));
    text = `${escapeMrkdwn(view.table)} recovered: commits resumed after ${title}`;
  } else if (outcome.kind === "could-not-check") {
    // Nothing is known about the writer: no "no recovery", and no step that restarts or changes anything.
    blocks.push(
      section(
        `:grey_question: *Could not check:* ${title} on \`${table}\`: the bot could not read what it needed, ` +
          `so whether the writer commits, and whether its last commit landed, is not known\n${checkLine(view)}`,
      ),
    );
    blocks.push(
      context(
        `Nothing is restarted or changed while that is unknown. Once the source answers again, run /iceberg diagnose ${escapeMrkdwn(view.table)}; the thread is yours.`,
      ),
    );
    text = `${escapeMrkdwn(view.table)}: ${title} could not be checked`;
  } else {
    // A read-only check changed nothing, so nothing failed to help: it answered and the change comes next.
    const readOnly = view.readOnly === true;
    blocks.push(
      section(
        readOnly
          ? `:mag: *Checked:* ${title} on \`${table}\`: the writer has not committed since\n${checkLine(view)}`
          : `:warning: *No recovery:* after ${view.check.total} checks, *${title}* did not bring back commits on \`${table}\`\n${checkLine(view)}`,
      ),
    );
    const elements: Button[] = [];
    if (outcome.revertable && !readOnly) {
      elements.push(
        renderRevertButton({ incidentId: view.incidentId, stepId: view.stepId, proposalId: view.proposalId }),
      );
    }
    if (outcome.nextStep !== undefined) elements.push(nextButton(view, outcome.nextStep));
    if (elements.length > 0) blocks.push(actions(elements, "verification_actions"));
    else blocks.push(context("No other step in the playbook fits; the thread is yours."));
    if (countsFrom && !readOnly) blocks.push(context(countsFrom));
    text = readOnly
      ? `${escapeMrkdwn(view.table)}: ${title} checked; the next step follows`
      : `${escapeMrkdwn(view.table)}: ${title} did not help`;
  }
  return { text, blocks };
}

/** What the report left for a person, each with the statement that helps do it. */
function stillToDo(view: VerificationView): KnownBlock[] {
  return (view.openItems ?? []).map((item) =>
    section(
      `:pushpin: *Still to do:* ${escapeMrkdwn(item.text)}. Mark it done on the card when it is.` +
        (item.statement ? `\n\`\`\`${item.statement}\`\`\`` : ""),
    ),
  );
}
