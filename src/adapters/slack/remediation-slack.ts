// Remediation in Slack beside the outbox: the words of a walk's thread notes (the poster renders
// them), the apply form filled into the placeholder an Apply click opened (a view: the one thing
// said at once rather than through the outbox, since its trigger lasts 3 s), and the members of
// approver groups.

import {
  declinedWords,
  leftToPeopleWords,
  plannedWords,
  revertedWords,
  revertFailedWords,
  settledWords,
} from "../../core/words/autopilot.js";
import { utcDay } from "../../core/words/clock.js";
import { formatDuration } from "../../core/words/duration.js";
import { stepWords } from "../../core/words/labels.js";
import type { ApplyFormContent, Clock, RemediationNote } from "../../services/ports.js";
import { slackDay } from "../render/times.js";
import { fillPlaceholder } from "./placeholder.js";
import { ACTION_IDS, actionButton } from "./render/action-value.js";
import type { SlackMessage } from "./render/block-kit.js";
import { actions, section } from "./render/blocks.js";
import { escapeMrkdwn, mention } from "./render/limits.js";
import { renderApplyModal, renderApplyRefusal } from "./render/proposal.js";
import { unseenWords } from "./render/walk-notice.js";
import type { SlackClient } from "./web-client.js";

/** Fills the placeholder an Apply click opened with the form, or with why it cannot be approved. */
export function applyFormFiller(
  slack: Pick<SlackClient, "views">,
): (viewId: string, content: ApplyFormContent) => Promise<boolean> {
  return (viewId, content) => {
    const view =
      content.kind === "form" ? renderApplyModal(content.view) : renderApplyRefusal(content.notices);
    return fillPlaceholder(slack, viewId, view);
  };
}

/** A thread note, rendered; autopilot's announcement carries its Hold and Apply now buttons. */
export function noteMessage(note: RemediationNote): SlackMessage {
  const { text, words } = noteWords(note);
  if (note.kind !== "autopilot-planned") return { text, blocks: [section(words)] };
  const buttons = [
    actionButton("Hold", ACTION_IDS.autopilotHold, note.action, "danger"),
    actionButton("Apply now", ACTION_IDS.autopilotNow, note.action),
  ];
  return { text, blocks: [section(words), actions(buttons, "autopilot_actions")] };
}

function noteWords(note: RemediationNote): { text: string; words: string } {
  switch (note.kind) {
    case "autopilot-planned":
      return withIcon(":robot_face:", plannedWords(note));
    case "autopilot-settled": {
      const { fate } = note;
      const by =
        fate.kind === "applied-now"
          ? ` Pressed by ${mention(fate.by)}.`
          : fate.kind === "held"
            ? ` Held by ${mention(fate.by)}.`
            : "";
      const icon = fate.kind === "applied" || fate.kind === "applied-now" ? ":robot_face:" : ":raised_hand:";
      return withIcon(icon, settledWords(note), by);
    }
    case "autopilot-refused":
      return withIcon(":raised_hand:", leftToPeopleWords(note.stepId, note.refusal));
    case "autopilot-declined":
      return withIcon(":raised_hand:", declinedWords(note.reason));
    case "autopilot-reverted":
      return withIcon(
        ":leftwards_arrow_with_hook:",
        note.ok ? revertedWords(note.stepId, note.next) : revertFailedWords(note.stepId),
      );
    case "apply-failed":
      return {
        text: `${escapeMrkdwn(note.stepTitle)} was not applied`,
        words: `:warning: *${escapeMrkdwn(note.stepTitle)}* was not applied: ${escapeMrkdwn(note.detail)}`,
      };
    case "proposal-failed":
      return {
        text: `${escapeMrkdwn(note.stepTitle)} could not be proposed`,
        words: `:warning: *${escapeMrkdwn(note.stepTitle)}* could not be proposed: ${escapeMrkdwn(note.reason)}. Nothing was changed; run /iceberg diagnose ${note.table} to try again.`,
      };
    case "walk-stopped": {
      const words = `:octagonal_sign: The playbook for \`${note.table}\` was stopped. Stopped by ${mention(note.by)}.`;
      return { text: words, words };
    }
    case "walk-stalled": {
      if (note.unseen?.length) {
        // RUNBOOK rule 1: nothing is restarted before it is known whether the last commit landed.
        const words = `:raised_hand: The bot could not check \`${note.table}\`: it could not read ${note.unseen.map(unseenWords).join(", nor ")}. No step that restarts or changes anything is offered while whether the last commit landed is unknown. The thread is yours from here.`;
        return { text: words, words };
      }
      const detail =
        note.terminalTitle === undefined
          ? `Every follow-up step after ${note.afterStepId} has been tried.`
          : `${escapeMrkdwn(note.terminalTitle)}: no further step in the playbook after ${note.afterStepId}.`;
      const words = `:raised_hand: No further step fits \`${note.table}\`. ${detail} The thread is yours from here.`;
      return { text: words, words };
    }
    case "seen-before":
      return seenBeforeWords(note.earlier);
  }
}

/** Plain words for the notification; in the thread the same words, escaped, after an icon. */
function withIcon(icon: string, words: string, after = ""): { text: string; words: string } {
  return { text: words, words: `${icon} ${escapeMrkdwn(words)}${after}` };
}

/** Members of Slack user groups, cached for a minute; an unreadable group approves nobody. */
export class SlackApproverDirectory {
  private readonly cache = new Map<string, { atMs: number; users: string[] }>();

  constructor(
    private readonly slack: SlackClient,
    private readonly now: Clock,
    private readonly onError: (groupId: string, error: unknown) => void,
  ) {}

  async groupMembers(groupId: string): Promise<string[]> {
    const cached = this.cache.get(groupId);
    const now = this.now();
    if (cached && now - cached.atMs < 60_000) return cached.users;
    try {
      const result = await this.slack.usergroups.users.list({ usergroup: groupId });
      const users = result.users ?? [];
      this.cache.set(groupId, { atMs: now, users });
      return users;
    } catch (error) {
      // Fail closed: an unreadable group approves nobody, and the refusal names the group.
      this.onError(groupId, error);
      return cached?.users ?? [];
    }
  }
}

/** "Seen on 12 Nov: raise commit retries fixed it in 6 min", and what did not help or was lost since. */
function seenBeforeWords(earlier: Extract<RemediationNote, { kind: "seen-before" }>["earlier"]): {
  text: string;
  words: string;
} {
  const day = slackDay(earlier.openedAtMs);
  const fixed = earlier.fixedBy
    ? `*${stepWords(earlier.fixedBy)}* fixed it${earlier.fixedAfterMs !== undefined ? ` in ${formatDuration(earlier.fixedAfterMs)}` : ""}`
    : "no step fixed it then";
  const parts = [`:repeat: Seen on ${day}: ${fixed}.`];
  if (earlier.didNotHelp.length > 0)
    parts.push(`Did not help then: ${earlier.didNotHelp.map((id) => stepWords(id)).join(", ")}.`);
  for (const lost of earlier.lost)
    parts.push(
      `\`${escapeMrkdwn(lost.key)}\` was set to \`${escapeMrkdwn(lost.setTo)}\` then and is ${lost.now === null ? "unset" : `\`${escapeMrkdwn(lost.now)}\``} now: the change was reverted or lost, the likely reason it failed again.`,
    );
  const words = parts.join(" ");
  const plain = `Seen on ${utcDay(earlier.openedAtMs)}: ${earlier.fixedBy ? `${stepWords(earlier.fixedBy)} fixed it` : "no step fixed it then"}`;
  return { text: plain, words };
}
