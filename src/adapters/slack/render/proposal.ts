// One playbook step put to the people in the thread: what changes, why, the risk, how we will know
// it worked, and the four buttons. Once someone decides, the buttons give way to who did what.

import type { Notice } from "../../../core/remediation/walk.js";
import { formatInterval } from "../../../core/words/duration.js";
import { stepWords } from "../../../core/words/labels.js";
import type {
  ActionValue,
  ApplyModalView,
  ProposalDecision,
  ProposalView,
} from "../../../services/view-models.js";
import { slackWhen } from "../../render/times.js";
import { ACTION_IDS, APPLY_MODAL, actionButton, encodeActionValue } from "./action-value.js";
import type { Button, KnownBlock, ModalView, SlackMessage } from "./block-kit.js";
import { actions, capBlocks, context, modal, plain, section } from "./blocks.js";
import { byHandStatement, codeBlock, renderChange } from "./change.js";
import { escapeCode, escapeMrkdwn, mention } from "./limits.js";
import { renderNotice } from "./walk-notice.js";

const RISK_EMOJI = {
  low: ":large_green_circle:",
  medium: ":large_yellow_circle:",
  high: ":red_circle:",
} as const;

const DECISION_WORDS: Record<ProposalDecision["kind"], string> = {
  applying: ":gear: Being applied",
  applied: ":white_check_mark: Applied",
  "done-by-hand": ":white_check_mark: Done by hand",
  skipped: ":fast_forward: Skipped",
  stopped: ":octagonal_sign: Stopped",
  reverted: ":leftwards_arrow_with_hook: Reverted",
};

/** A button that asks before it acts. */
function confirmed(
  button: Button,
  title: string,
  text: string,
  yes: string,
  no: string,
  danger = false,
): Button {
  return {
    ...button,
    confirm: {
      title: plain(title),
      text: { type: "mrkdwn", text },
      confirm: plain(yes),
      deny: plain(no),
      ...(danger ? { style: "danger" as const } : {}),
    },
  };
}

/** Apply is offered only when the bot can make the change itself. */
function canApply(view: Pick<ProposalView, "step">): boolean {
  // A read-only check has nothing to apply: the bot looks at once.
  return (
    view.step.automatic && view.step.change.kind !== "manual" && view.step.change.kind !== "read-only-check"
  );
}

/**
 * Done by hand only while the step waits for someone: a read-only check is the bot's own look and
 * starts at once, so the machine would refuse Done (the step is already verifying).
 */
function canMarkDone(view: Pick<ProposalView, "step">): boolean {
  return view.step.change.kind !== "read-only-check";
}

function stopButton(value: ActionValue): Button {
  return confirmed(
    actionButton("Stop", ACTION_IDS.stop, value, "danger"),
    "Stop the playbook?",
    "No further steps will be proposed for this incident. The thread stays open for people to continue.",
    "Stop",
    "Keep going",
    true,
  );
}

function stepHeading(view: ProposalView): string {
  const position = view.index === undefined ? "" : ` ${view.index}`;
  return `:wrench: *Step${position}: ${stepWords(view.step.id)}* for \`${escapeCode(view.table)}\`\n${escapeMrkdwn(view.step.summary)}`;
}

function verificationText(view: ProposalView): string {
  const { checks, intervalSeconds, signal } = view.verification;
  const what = signal === undefined ? "the writer's snapshots resume" : escapeMrkdwn(signal);
  const span = formatInterval(checks * intervalSeconds * 1000);
  return `*How we'll know:* ${what}; up to ${checks} checks over ${span}.`;
}

export function renderProposal(view: ProposalView): SlackMessage {
  const value: ActionValue = {
    incidentId: view.incidentId,
    stepId: view.step.id,
    proposalId: view.proposalId,
  };
  const manual = view.step.change.kind === "manual";
  const readOnly = view.step.change.kind === "read-only-check";
  const blocks: KnownBlock[] = [section(stepHeading(view))];
  // The table's earlier incident with the same cause: said before anything else is read.
  if (view.earlier?.outcome === "did-not-help")
    blocks.push(context(":warning: This step did not help the last time this table failed this way."));
  if (view.earlier?.outcome === "fixed")
    blocks.push(context(":repeat: This step fixed it the last time this table failed this way."));
  const changeLabel = manual
    ? "*Run this yourself, then press Done by hand:*"
    : readOnly
      ? "*The bot checks this itself, nothing changes:*"
      : "*What changes:*";
  blocks.push(section(`${changeLabel}\n${renderChange(view.step.change)}`));
  // The statement to run by hand is a second copy of the diff: the Apply form shows it, once
  // someone is deciding how to make the change; the thread shows the diff once.
  blocks.push(
    section(
      [
        `*Why this step:* ${escapeMrkdwn(view.why)}`,
        riskLine(view.risk),
        // A read-only check answers at its first look (said under the buttons): no count of checks.
        ...(readOnly ? [] : [verificationText(view)]),
      ].join("\n"),
    ),
  );
  if (view.decision !== undefined) {
    const d = view.decision;
    const reason = d.reason === undefined || d.reason === "" ? "" : `: ${escapeMrkdwn(d.reason)}`;
    // A read-only check applies nothing: the bot's own run of it reads as a check.
    const words = readOnly && d.kind === "applied" ? ":mag: Checked" : DECISION_WORDS[d.kind];
    if (
      d.approvers !== undefined &&
      d.approvers.length > 1 &&
      (d.kind === "applied" || d.kind === "applying")
    ) {
      // Two people approved a risky step: both stay on the message, each with their reason.
      const who = d.approvers
        .map(
          (a, i) =>
            `${i + 1}. ${mention(a.by)} at ${slackWhen(a.atMs, a.atMs)}${a.reason ? `: ${escapeMrkdwn(a.reason)}` : ""}`,
        )
        .join("\n");
      blocks.push(context(`${words} at ${slackWhen(d.atMs, d.atMs)}, approved by:\n${who}`));
    } else blocks.push(context(`${words} by ${mention(d.by)} at ${slackWhen(d.atMs, d.atMs)}${reason}`));
  } else {
    const elements: Button[] = [];
    if (canApply(view)) elements.push(actionButton("Apply", ACTION_IDS.apply, value, "primary"));
    if (canMarkDone(view)) elements.push(actionButton("Done by hand", ACTION_IDS.done, value));
    elements.push(actionButton("Skip", ACTION_IDS.skip, value));
    elements.push(stopButton(value));
    blocks.push(actions(elements, "playbook_actions"));
    if (readOnly) {
      // Nobody approves a look: say what happens instead of naming approvers.
      blocks.push(context("The bot is checking now; the result follows in this thread. Skip moves on."));
    } else if (view.approvers !== undefined && view.approvers.length > 0) {
      blocks.push(context(`Approvers: ${view.approvers.map(mention).join(", ")}`));
    }
  }
  const pending = readOnly ? " (the bot is checking)" : " (waiting for approval)";
  const text = `Step for ${escapeMrkdwn(view.table)}: ${stepWords(view.step.id)}${
    view.decision === undefined ? pending : ""
  }`;
  return { text, blocks: capBlocks(blocks) };
}

/** The views.open payload behind Apply: a required reason, and for risky steps a confirmation. */
export function renderApplyModal(view: ApplyModalView): ModalView {
  const lines = [
    `Apply *${stepWords(view.stepId)}* to \`${escapeCode(view.table)}\`\n${renderChange(view.change)}`,
  ];
  if (view.risk !== undefined) lines.push(riskLine(view.risk));
  const byHand = byHandStatement(view.change);
  if (byHand !== undefined && byHand !== "")
    lines.push(
      `_To do it by hand instead:_ cancel, run\n${codeBlock(byHand)}\nthen press *Done by hand* on the proposal.`,
    );
  if (view.approval !== undefined && view.approval.of > 1) {
    lines.push(`*This is approval ${view.approval.index} of ${view.approval.of}.*`);
    for (const earlier of view.approval.earlier)
      lines.push(
        `${mention(earlier.by)} approved first${earlier.reason ? `: ${escapeMrkdwn(earlier.reason)}` : "."}`,
      );
  }
  const blocks: KnownBlock[] = [
    section(lines.join("\n")),
    {
      type: "input",
      block_id: APPLY_MODAL.reasonBlockId,
      label: plain("Reason"),
      hint: plain("Kept in the incident's audit trail."),
      element: {
        type: "plain_text_input",
        action_id: APPLY_MODAL.reasonActionId,
        multiline: true,
        min_length: 3,
        max_length: 500,
        placeholder: plain("Why now; a ticket link if there is one"),
      },
    },
  ];
  if (view.risky) {
    blocks.push({
      type: "input",
      block_id: APPLY_MODAL.confirmBlockId,
      label: plain("Correctness"),
      element: {
        type: "checkboxes",
        action_id: APPLY_MODAL.confirmActionId,
        options: [
          {
            text: plain("I checked this is correct for every reader and writer"),
            description: plain(
              view.stepId === "review-isolation-level"
                ? "Weaker isolation can let conflicting changes both commit."
                : "The change is applied only with this confirmation.",
            ),
            value: APPLY_MODAL.confirmValue,
          },
        ],
      },
    });
  }
  const fields = {
    callback_id: APPLY_MODAL.callbackId,
    private_metadata: encodeActionValue(view),
    submit: plain("Apply"),
  };
  return modal("Apply change", blocks, fields, "Cancel");
}

/** What the Apply click's form shows instead of the form when the step cannot be approved now. */
export function renderApplyRefusal(notices: readonly Notice[]): ModalView {
  const blocks = notices.map((notice) => section(`:no_entry: ${renderNotice(notice)}`));
  return modal("Apply change", blocks, { callback_id: APPLY_MODAL.refusedCallbackId });
}

export function renderRevertButton(view: ActionValue): Button {
  return confirmed(
    actionButton("Revert", ACTION_IDS.revert, view),
    "Revert this change?",
    "The values from before the change are put back; the revert is audited too.",
    "Revert",
    "Cancel",
  );
}

/** "*Risk:* 🟢 low, a commit may take longer": the playbook's sentence continues the level's clause. */
function riskLine(risk: NonNullable<ProposalView["risk"]>): string {
  // "It deletes …" reads on as "it deletes …"; an acronym or id ("SQL", "ALTER") keeps its case.
  const detail = /^[A-Z](?:[a-z]| )/.test(risk.detail)
    ? risk.detail[0]!.toLowerCase() + risk.detail.slice(1)
    : risk.detail;
  return `*Risk:* ${RISK_EMOJI[risk.level]} ${risk.level}, ${escapeMrkdwn(detail)}`;
}
