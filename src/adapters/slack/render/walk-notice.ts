// The words of a walk's structured notices: ephemeral answers to a click and the line under an
// edited proposal. The core says which case it is; every sentence and every mention is made here.

import type { SourceName } from "../../../core/ids.js";
import type { Notice, ProposalNote } from "../../../core/remediation/walk.js";
import { utcTime } from "../../../core/words/clock.js";
import { SOURCE_WORDS, sourceSaid } from "../../../core/words/labels.js";
import { escapeMrkdwn, mention } from "./limits.js";

function people(ids: readonly string[], joiner = " and "): string {
  return ids.map(mention).join(joiner);
}

/** Groups first, then people: "<!subteam^S1> or <@U2>". */
function whoCanApprove(userIds: readonly string[], groupIds: readonly string[]): string {
  const names = [...groupIds, ...userIds].map(mention);
  if (names.length <= 1) return names[0] ?? "an administrator to configure approvers";
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/**
 * What a check could not read, in words: "the table's snapshots (Iceberg REST catalog: 503 …)".
 * The verification message, the could-not-check note and the thread's hand-back all say it so.
 */
export function unseenWords(unseen: { source: string; reason: string }): string {
  const label = SOURCE_WORDS[unseen.source as SourceName] ?? unseen.source;
  const what = unseen.source === "catalog" ? "the table's snapshots" : label;
  return `${what} (${escapeMrkdwn(sourceSaid(label, unseen.reason))})`;
}

/** The ephemeral answer to a click, as mrkdwn. */
export function renderNotice(notice: Notice): string {
  switch (notice.kind) {
    case "stale-proposal":
      return "This proposal is out of date; use the latest one in the thread.";
    case "not-current":
      return `This proposal is out of date; the current step is ${notice.currentStepId}. Use the latest proposal in the thread.`;
    case "already-approved":
      return `Already approved by ${people(notice.approverUserIds)}; it is applied once.`;
    case "already-in-place":
      return `This change is already in place; verification runs until ${utcTime(notice.verifyEndsAtMs)}.`;
    case "await-refresh":
      return "The table changed since this proposal was made; wait for the refreshed proposal and approve that one.";
    case "outcome-unknown":
      return "Nobody can tell yet whether the last attempt landed. Check the table first; if the change is there press Done by hand, otherwise ask for a fresh proposal.";
    case "nothing-to-approve":
      return `This step is ${notice.phase}; nothing to approve.`;
    case "manual-step":
      return "The bot cannot make this change itself: run the statement shown in the proposal, then press Done by hand.";
    case "confirm-first":
      return `Before approving, confirm: ${notice.missing.map(escapeMrkdwn).join(", ")}. This step is only safe when you have checked it.`;
    case "second-approver-needed":
      return `You already approved this risky step; it needs a second approver other than you (${notice.approvals} of ${notice.needed}).`;
    case "approval-recorded":
      return "Your approval is recorded. This step is risky, so someone else must approve it too before it is applied.";
    case "cannot-mark-done":
      return `This step is ${notice.phase}; it cannot be marked done by hand now.`;
    case "applying-now":
      return notice.action === "skip"
        ? "The change is being applied right now; wait for the result, then skip."
        : "A change is being applied right now; stop once it finishes (seconds), and revert it then if needed.";
    case "nothing-to-revert": {
      const why = notice.why === "not-applied-by-bot" ? "nothing the bot applied" : `already ${notice.why}`;
      return `There is nothing to revert for ${notice.stepId} (${why}).`;
    }
    case "one-at-a-time":
      return `One change at a time: ${notice.stepId} on ${escapeMrkdwn(notice.table)} is ${notice.phase}; its verification ends at ${utcTime(notice.verifyEndsAtMs)}. Decide on the next step after that.`;
    case "no-open-proposal":
      return "There is no open proposal for this table right now.";
    case "no-walk":
      return "There is no open proposal for this incident any more; run /iceberg status to see where things stand.";
    case "walk-over":
      return `The playbook for ${escapeMrkdwn(notice.table)} has ended (${notice.status}). Run /iceberg diagnose ${escapeMrkdwn(notice.table)} to start again.`;
    case "not-approver": {
      const table = escapeMrkdwn(notice.table);
      return notice.reason === "no-approvers"
        ? `Nobody is allowed to approve changes to ${table} yet: add approvers to BOT_CONFIG (tables.${table}.approvers or defaults.approvers).`
        : `You are not an approver for ${table}; ask ${whoCanApprove(notice.approverUserIds, notice.approverGroupIds)}.`;
    }
    case "already-proposed":
      return "That step is already proposed in the thread.";
    case "step-open":
      return "A step is already open for this table; decide on it first.";
    case "offer-changed":
      return "This button is out of date; the playbook offers a different step now.";
    case "apply-form-failed":
      return "The approval form could not be opened (Slack refused it, perhaps it took too long). Press Apply again.";
    case "record-unreadable":
      return notice.newer
        ? `Incident ${escapeMrkdwn(notice.incidentId)} was last changed by a newer iceberg-bot, so this one leaves it as it is and nothing was done. Upgrade this bot to that release (docs/operations.md, Upgrading and rolling back).`
        : `The stored playbook state of incident ${escapeMrkdwn(notice.incidentId)} cannot be read, so nothing was done. The bot's log names the field (stored_record_invalid); other incidents are not affected.`;
  }
}

/** The context line under an edited proposal, as mrkdwn. */
export function renderProposalNote(note: ProposalNote): string {
  switch (note.kind) {
    case "superseded":
      return "Replaced by a newer proposal below.";
    case "approval-recorded":
      return `Approved by ${mention(note.by)} (${note.approvals} of ${note.needed}); someone other than ${people(note.approverUserIds)} must approve too.`;
    case "approved":
      return `Approved by ${people(note.approverUserIds)}.`;
    case "applying":
      return "Applying the change…";
    case "applied":
      // The apply job's own sentence, made by the bot from the change (not outside text).
      return note.detail ?? "Applied. The first check follows.";
    case "apply-failed": {
      const { message } = note;
      if (note.outcome === "conflict")
        return `The table changed while applying, so nothing was forced: ${message} A refreshed proposal follows.`;
      if (note.outcome === "unknown")
        return `It is not known whether the change landed: ${message} Nothing will be retried; check the table, then press Done by hand if it is there.`;
      return `Nothing was changed: ${message} Press Apply to try again.`;
    }
    case "done-by-hand":
      return `Done by hand by ${mention(note.by)}. The first check follows.`;
    case "skipped":
      return `Skipped by ${mention(note.by)}.`;
    case "stopped":
      return `Stopped by ${mention(note.by)}.${note.changeKept ? " The change stays in place; use Revert to undo it." : ""}`;
    case "recovered":
      return "The writer is committing again.";
    case "could-not-check":
      // Not "no recovery": the bot could not read what it needed, so it says nothing of the writer.
      return `Could not check: the bot could not read ${note.unseen.map(unseenWords).join(", nor ")}. Nothing is restarted or changed until it can.`;
    case "ineffective":
      // A read-only check changes nothing, so it cannot fail to bring commits back: it answered.
      if (note.readOnly) return "Checked: the writer has not committed since. The next step follows.";
      return `No recovery after ${note.checks} checks.${note.revertable ? " Revert is available." : ""}`;
    case "reverting":
      return `Reverting, as ${mention(note.by)} asked…`;
    case "reverted":
      return "Reverted to the previous values.";
    case "revert-failed":
      return `The revert did not go through: ${note.message ?? "unknown error"}. The change is still in place.`;
  }
}
