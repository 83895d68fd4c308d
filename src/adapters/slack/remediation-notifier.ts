// Remediation's messages in Slack: the proposal, its edits, the verification message, thread
// notes and ephemeral refusals, and the apply form (filled into the placeholder the click opened). The services hand over view models; every
// word and every mention is rendered here. Thread messages are posted at most once per name
// (claims in Redis guard it across processes and retried jobs) and edited in place afterwards.

import type { Notice, ProposalNote } from "../../core/playbook/walk.js";
import type {
  ApplyFormContent,
  Clock,
  RemediationNotifier,
  WalkNote,
  WalkThread,
} from "../../services/ports.js";
import type { ProposalView, VerificationView } from "../../services/view-models.js";
import type { Claims } from "../store/claims.js";
import type { IncidentStore } from "../store/incident-store.js";
import { fillPlaceholder } from "./placeholder.js";
import type { SlackMessage } from "./render/block-kit.js";
import { context, section } from "./render/blocks.js";
import {
  escapeMrkdwn,
  renderApplyModal,
  renderApplyRefusal,
  renderProposal,
  renderVerification,
} from "./render/index.js";
import { mention } from "./render/labels.js";
import { renderNotice, renderProposalNote } from "./render/walk-notice.js";
import type { SlackClient } from "./web-client.js";

export interface SlackNotifierDeps {
  slack: SlackClient;
  claims: Claims;
  store: Pick<IncidentStore, "get">;
  /** How long a proposal waits for the diagnosis message it answers (default 15 s). */
  diagnosisWaitMs?: number;
  /** Waits between polls; injected so tests and the demo run on their own clocks. */
  sleep?: (ms: number) => Promise<void>;
}

const POLL_MS = 100;
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class SlackRemediationNotifier implements RemediationNotifier {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly deps: SlackNotifierDeps) {
    this.sleep = deps.sleep ?? realSleep;
  }

  async postProposal(thread: WalkThread, name: string, view: ProposalView): Promise<void> {
    await this.waitForDiagnosis(thread);
    await this.postOnce(thread, name, renderProposal(view));
  }

  async updateProposal(
    thread: WalkThread,
    name: string,
    view: ProposalView,
    note: ProposalNote,
    withButtons: boolean,
  ): Promise<void> {
    const ts = await this.deps.claims.messageTs(thread.incidentId, name);
    if (!ts) return;
    const rendered = renderProposal(view);
    let blocks = rendered.blocks;
    if (!withButtons) blocks = blocks.filter((b) => b.type !== "actions");
    blocks = [...blocks, context(renderProposalNote(note))];
    await this.deps.slack.chat.update({ channel: thread.channel, ts, text: rendered.text, blocks });
  }

  async upsertVerification(thread: WalkThread, name: string, view: VerificationView): Promise<void> {
    await this.upsert(thread, name, renderVerification(view));
  }

  async postNote(thread: WalkThread, name: string, note: WalkNote): Promise<void> {
    await this.postOnce(thread, name, noteMessage(note));
  }

  async postEphemeral(thread: WalkThread, user: string, notice: Notice): Promise<void> {
    const incident = await this.deps.store.get(thread.incidentId);
    await this.deps.slack.chat.postEphemeral({
      channel: thread.channel,
      user,
      text: renderNotice(notice),
      ...(incident?.rootTs ? { thread_ts: incident.rootTs } : {}),
    });
  }

  async fillApplyForm(viewId: string, content: ApplyFormContent): Promise<boolean> {
    const view =
      content.kind === "form" ? renderApplyModal(content.view) : renderApplyRefusal(content.notices);
    return fillPlaceholder(this.deps.slack, viewId, view, { sleep: this.sleep });
  }

  // ---------------------------------------------------------------------------------------------

  /** Waits (bounded) for the diagnosis message, so the proposal lands under it in the thread. */
  private async waitForDiagnosis(thread: WalkThread): Promise<void> {
    const n = thread.proposedForDiagnosis;
    if (n === undefined) return;
    for (let poll = 0; poll < this.polls(); poll++) {
      if (await this.deps.claims.messageTs(thread.incidentId, `diagnosis-${n}`)) return;
      await this.sleep(POLL_MS);
    }
  }

  private async rootTs(thread: WalkThread): Promise<string | undefined> {
    for (let poll = 0; ; poll++) {
      const incident = await this.deps.store.get(thread.incidentId);
      if (incident?.rootTs) return incident.rootTs;
      if (poll >= this.polls()) return undefined;
      await this.sleep(POLL_MS);
    }
  }

  /** The waits are counted in polls, not read from a clock: the bot's clock may be simulated. */
  private polls(): number {
    return Math.ceil((this.deps.diagnosisWaitMs ?? 15_000) / POLL_MS);
  }

  /** Posts a thread message at most once per name. */
  private async postOnce(
    thread: WalkThread,
    name: string,
    message: SlackMessage,
  ): Promise<string | undefined> {
    const owner = `remediation-${process.pid}-${name}`;
    const claim = await this.deps.claims.claim(thread.incidentId, name, owner);
    if (claim.kind === "done") return claim.ts;
    if (claim.kind === "held-by-other") return undefined;
    try {
      const threadTs = await this.rootTs(thread);
      const result = await this.deps.slack.chat.postMessage({
        channel: thread.channel,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        text: message.text,
        blocks: message.blocks,
      });
      const ts = String(result.ts);
      await this.deps.claims.complete(thread.incidentId, name, ts);
      return ts;
    } catch (error) {
      await this.deps.claims.release(thread.incidentId, name, owner);
      throw error;
    }
  }

  /** One message edited in place: posted the first time, updated afterwards. */
  private async upsert(thread: WalkThread, name: string, message: SlackMessage): Promise<void> {
    const ts = await this.deps.claims.messageTs(thread.incidentId, name);
    if (!ts) {
      await this.postOnce(thread, name, message);
      return;
    }
    await this.deps.slack.chat.update({
      channel: thread.channel,
      ts,
      text: message.text,
      blocks: message.blocks,
    });
  }
}

/** A thread note, rendered. */
export function noteMessage(note: WalkNote): SlackMessage {
  const { text, words } = noteWords(note);
  return { text, blocks: [section(words)] };
}

function noteWords(note: WalkNote): { text: string; words: string } {
  switch (note.kind) {
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
      const detail =
        note.terminalTitle === undefined
          ? `Every follow-up step after ${note.afterStepId} has been tried.`
          : `${escapeMrkdwn(note.terminalTitle)}: no further step in the playbook after ${note.afterStepId}.`;
      const words = `:raised_hand: No further step fits \`${note.table}\`. ${detail} The thread is yours from here.`;
      return { text: words, words };
    }
  }
}

/** Members of Slack user groups, cached for a minute; an unreadable group approves nobody. */
export class SlackApproverDirectory {
  private readonly cache = new Map<string, { atMs: number; users: string[] }>();

  constructor(
    private readonly slack: SlackClient,
    private readonly now: Clock,
    private readonly onError: (groupId: string, error: unknown) => void,
    private readonly cacheMs = 60_000,
  ) {}

  async groupMembers(groupId: string): Promise<string[]> {
    const cached = this.cache.get(groupId);
    const now = this.now();
    if (cached && now - cached.atMs < this.cacheMs) return cached.users;
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
