// What the outbox's entries show, rendered for Slack: the status card, a diagnosis and its chart,
// a command result, the sweep's messages, the walk's messages, ephemeral answers and App Home.
// Views that report on stored state (the card, a diagnosis, App Home, `/iceberg status`) read it
// here, when the entry is sent, so a late delivery never shows an older state than the last one.

import type { TimelineChart } from "../../core/chart/timeline.js";
import { recurringTables } from "../../core/history/fleet.js";
import type { Postmortem } from "../../core/history/postmortem.js";
import type { IncidentHistory } from "../../core/history/record.js";
import type { Incident } from "../../core/incident/model.js";
import type { EphemeralReply } from "../../core/jobs.js";
import type { Notice } from "../../core/playbook/walk.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { HistoryPort, TimelineFile } from "../../services/ports.js";
import type { IncidentStore } from "../store/incident-store.js";
import { type HomeDeps, homeView } from "./home.js";
import type { ChannelMessage, OutboxMessage } from "./outbox/deliveries.js";
import type { SlackMessage } from "./render/block-kit.js";
import { context } from "./render/blocks.js";
import { renderProposal, renderVerification } from "./render/index.js";
import { escapeMrkdwn } from "./render/limits.js";
import { renderSweepDigest } from "./render/sweep-digest.js";
import { renderNotice, renderProposalNote } from "./render/walk-notice.js";
import type { Renderers } from "./renderers.js";
import {
  commandResultMessage,
  diagnosisChart,
  diagnosisMessage,
  renderCard,
  replyMessage,
} from "./slack-jobs.js";
import type { StorySources } from "./story-source.js";
import { noteMessage } from "./walk-slack.js";
import type { SlackClient } from "./web-client.js";

export interface SlackViewsDeps {
  client: SlackClient;
  store: IncidentStore;
  render: Renderers;
  now: () => number;
  /** Where the incident's story is read from besides the store (walks, playbooks, people). */
  story?: Omit<StorySources, "store">;
  /** Closed incidents: `/iceberg history`, App Home's recurring tables and weekly counts. */
  history?: Pick<HistoryPort, "list"> & { all(): Promise<IncidentHistory[]> };
  /** How late the incident's messages came (the card says so). */
  delays?: { get(incidentId: string): Promise<number | undefined> };
  /** The latest sweep's digest, shown on App Home. */
  latestSweep?: () => Promise<Digest | undefined>;
  /** The retention window App Home's recurring tables are counted in. */
  recurringDays?: number;
  /** The postmortem of a closed incident, drafted from what is stored (undefined until its history is). */
  postmortem?: (incidentId: string) => Promise<Postmortem | undefined>;
}

export class SlackViews {
  constructor(private readonly deps: SlackViewsDeps) {}

  /** The status card of the incident's current state. */
  async card(incident: Incident): Promise<SlackMessage> {
    const delayed = await this.deps.delays?.get(incident.id);
    return renderCard(this.deps, incident, delayed);
  }

  diagnosis(incidentId: string, n: number): Promise<SlackMessage> {
    return diagnosisMessage(this.deps, incidentId, n);
  }

  diagnosisChart(
    incidentId: string,
    n: number,
  ): Promise<{ chart: TimelineChart; file: TimelineFile } | undefined> {
    return diagnosisChart(this.deps, incidentId, n);
  }

  commandResult(result: unknown): SlackMessage {
    return commandResultMessage(this.deps, result as Parameters<typeof commandResultMessage>[1]);
  }

  /** A message of no incident: the sweep's digest, an audit in its thread, plain words. */
  channelMessage(message: ChannelMessage): SlackMessage {
    if (message.kind === "digest") return renderSweepDigest(message.digest);
    if (message.kind === "text") return { text: escapeMrkdwn(message.text), blocks: [] };
    return this.deps.render.audit(message.report);
  }

  /** A message of a walk's thread, from the view it carries. */
  message(message: OutboxMessage): SlackMessage {
    switch (message.kind) {
      case "proposal": {
        const rendered = renderProposal(message.view);
        if (message.note === undefined) return rendered;
        let blocks = rendered.blocks;
        if (message.withButtons === false) blocks = blocks.filter((b) => b.type !== "actions");
        return { text: rendered.text, blocks: [...blocks, context(renderProposalNote(message.note))] };
      }
      case "verification":
        return renderVerification(message.view);
      case "note":
        return noteMessage(message.note);
      case "text":
        return { text: escapeMrkdwn(message.text), blocks: [] };
    }
  }

  notice(notice: Notice): SlackMessage {
    return { text: renderNotice(notice), blocks: [] };
  }

  /** An ephemeral answer that belongs to no incident (status, history, a sweep button's). */
  reply(reply: EphemeralReply): Promise<SlackMessage> {
    return replyMessage(
      { ...this.deps, ...(this.deps.history ? { history: this.deps.history } : {}) },
      reply,
    );
  }

  postmortem(incidentId: string): Promise<Postmortem | undefined> {
    return this.deps.postmortem?.(incidentId) ?? Promise.resolve(undefined);
  }

  /** A user's App Home from the current state. */
  home(): Promise<ReturnType<Renderers["appHome"]>> {
    const { history, recurringDays } = this.deps;
    const recurring: HomeDeps["recurring"] =
      history && recurringDays !== undefined
        ? { tables: async () => recurringTables(await history.all()), days: recurringDays }
        : undefined;
    return homeView({
      ...this.deps,
      now: this.deps.now(),
      ...(recurring ? { recurring } : {}),
      ...(history ? { closed: () => history.all() } : {}),
    });
  }
}
