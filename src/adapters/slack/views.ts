// What the outbox's entries show, rendered for Slack: the status card, a diagnosis and its chart,
// a command result, the sweep's messages, the walk's messages, ephemeral answers and App Home.
// Views that report on stored state (the card, a diagnosis, App Home, `/iceberg status`) read it
// here, when the entry is sent, so a late delivery never shows an older state than the last one.

import { describeTimeline, isTimelineChart, type TimelineChart } from "../../core/chart/timeline.js";
import { recurringTables } from "../../core/history/fleet.js";
import type { Postmortem } from "../../core/history/postmortem.js";
import type { IncidentHistory } from "../../core/history/record.js";
import type { Incident } from "../../core/incident/model.js";
import type { EphemeralReply } from "../../core/jobs.js";
import type { Notice } from "../../core/remediation/walk.js";
import { AuditReportSchema, ReportSchema } from "../../core/report/schema.js";
import type { Digest } from "../../core/sweep/digest.js";
import type { HistoryPort, TimelineFile, UnreadableRecord } from "../../services/ports.js";
import type { IncidentStore } from "../store/incident-store.js";
import type { ChannelMessage, OutboxMessage } from "./outbox/messages.js";
import { noteMessage } from "./remediation-slack.js";
import { RECENT_WINDOW_MS, renderAppHome } from "./render/app-home.js";
import { renderAudit } from "./render/audit.js";
import type { HomeView, SlackMessage } from "./render/block-kit.js";
import { context } from "./render/blocks.js";
import { renderDiagnosis } from "./render/diagnosis.js";
import { renderUsageError } from "./render/errors.js";
import { renderHistory } from "./render/history.js";
import { escapeMrkdwn } from "./render/limits.js";
import { renderProposal } from "./render/proposal.js";
import { recurringBlocks } from "./render/recurring.js";
import { renderStatusCard } from "./render/status-card.js";
import { renderStatusList } from "./render/status-list.js";
import { renderSweepDigest, sweepHomeBlocks } from "./render/sweep-digest.js";
import { unreadableNote, withUnreadableNote } from "./render/unreadable-note.js";
import { renderVerification } from "./render/verification.js";
import { renderNotice, renderProposalNote } from "./render/walk-notice.js";
import { isNewer, threadPermalink } from "./slack-jobs.js";
import { loadStory, type StorySources } from "./story-source.js";
import type { SlackClient } from "./web-client.js";

export interface SlackViewsDeps {
  client: SlackClient;
  store: IncidentStore;
  now: () => number;
  /** Where the incident's story is read from besides the store (walks, playbooks, people). */
  story?: Omit<StorySources, "store">;
  /** Closed incidents: `/iceberg history`, App Home's recurring tables and weekly counts. */
  history?: Pick<HistoryPort, "list"> & {
    all(maxTables?: number, onUnreadable?: (record: UnreadableRecord) => void): Promise<IncidentHistory[]>;
  };
  /** How late the incident's messages came (the card says so). */
  delays?: { get(incidentId: string): Promise<number | undefined> };
  /** The catalog sweeps: the latest one's digest is shown on App Home. */
  sweeps?: { latest(): Promise<Digest | undefined> };
  /** Autopilot's lines on App Home (services/autopilot). */
  autopilot?: () => Promise<string[]>;
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
    return renderStatusCard(await this.story(incident), this.deps.now(), delayed);
  }

  /** Diagnosis n of an incident, as its thread shows it. */
  async diagnosis(incidentId: string, n: number): Promise<SlackMessage> {
    const report = ReportSchema.parse(await this.deps.store.getReport(incidentId, n));
    return renderDiagnosis(report, { evidenceRef: `${incidentId}|${n}` });
  }

  /** Diagnosis n's commit timeline and the file it is shared as (undefined: none was drawn). */
  async diagnosisChart(
    incidentId: string,
    n: number,
  ): Promise<{ chart: TimelineChart; file: TimelineFile } | undefined> {
    const chart = await this.deps.store.getChart(incidentId, n);
    if (!isTimelineChart(chart)) return undefined;
    const file = {
      name: `${chart.table}-commits-${n}.png`,
      title: `Commits to ${chart.table}`,
      altText: describeTimeline(chart),
    };
    return { chart, file };
  }

  /** A slash command's result (a diagnosis or an audit). */
  commandResult(result: unknown): SlackMessage {
    const { type, report } = result as { type: "diagnosis" | "audit"; report: unknown };
    return type === "diagnosis"
      ? renderDiagnosis(ReportSchema.parse(report))
      : renderAudit(AuditReportSchema.parse(report));
  }

  /** A message of no incident: the sweep's digest, an audit in its thread, plain words. */
  channelMessage(message: ChannelMessage): SlackMessage {
    if (message.kind === "digest") return renderSweepDigest(message.digest);
    if (message.kind === "text") return { text: escapeMrkdwn(message.text), blocks: [] };
    return renderAudit(message.report);
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

  /** An ephemeral answer, rendered from the state it reports on when it is sent. */
  async reply(reply: EphemeralReply): Promise<SlackMessage> {
    const { store, client } = this.deps;
    switch (reply.kind) {
      case "unknown-table":
      case "failed":
      case "rate-limited":
        return renderUsageError(reply);
      case "status": {
        const unreadable: UnreadableRecord[] = [];
        const now = this.deps.now();
        const { items } = await this.openIncidents((r) => unreadable.push(r));
        return withUnreadableNote(renderStatusList({ nowMs: now, incidents: items }), unreadable);
      }
      case "history": {
        const entries = await store.audit(reply.table);
        const unreadable: UnreadableRecord[] = [];
        const incidents = (await this.deps.history?.list(reply.table, (r) => unreadable.push(r))) ?? [];
        const message = renderHistory({ table: reply.table, entries, incidents });
        return withUnreadableNote(message, unreadable);
      }
      case "text":
        return { text: escapeMrkdwn(reply.text), blocks: [] };
      case "fix-started": {
        const incident = await store.get(reply.incidentId);
        const link = incident ? await threadPermalink(client, incident) : undefined;
        const where = link ? `<${link}|its thread>` : "its thread";
        const table = escapeMrkdwn(reply.table);
        const text =
          reply.outcome === "opened"
            ? `Opened an incident for \`${table}\`: the diagnosis and the proposed step follow in ${where}.`
            : `\`${table}\` already has an open incident; the fix goes on in ${where}.`;
        return { text, blocks: [] };
      }
    }
  }

  postmortem(incidentId: string): Promise<Postmortem | undefined> {
    return this.deps.postmortem?.(incidentId) ?? Promise.resolve(undefined);
  }

  /**
   * A user's App Home from the current state: open incidents newest first with their status cards,
   * then recently affected tables (the outbox's poster publishes it).
   */
  async home(): Promise<HomeView> {
    const { store, history, recurringDays, sweeps } = this.deps;
    const now = this.deps.now();
    // Records passed over are named in the view, so the person sees the list has a gap.
    const unreadable: UnreadableRecord[] = [];
    const passedOver = (record: UnreadableRecord) => unreadable.push(record);
    const { open, items } = await this.openIncidents(passedOver);
    const recent = await store.recentTables(now - RECENT_WINDOW_MS);
    const closed = (await history?.all(undefined, passedOver).catch(() => [])) ?? [];
    const view = renderAppHome({
      nowMs: now,
      open: items,
      recentTables: recent.map((r) => ({
        table: r.table,
        incidents: weekCount(r.table, now - RECENT_WINDOW_MS, open, closed),
        lastOpenedAtMs: r.lastOpenedAt,
      })),
    });
    // Within the view's 100 blocks: the recurring tables take one, the sweep's section at most seven.
    const extra = [];
    // Tables that failed more than once within the retention window.
    if (history && recurringDays !== undefined)
      extra.push(...recurringBlocks(recurringTables(closed), recurringDays));
    if (sweeps) extra.push(...sweepHomeBlocks(await sweeps.latest().catch(() => undefined), now));
    const autopilot = (await this.deps.autopilot?.().catch(() => [])) ?? [];
    if (autopilot.length > 0) extra.push(context(escapeMrkdwn(autopilot.join("\n"))));
    const note = unreadableNote(unreadable);
    if (note) extra.unshift(context(note));
    if (extra.length > 0) view.blocks = [...view.blocks.slice(0, 100 - extra.length), ...extra];
    return view;
  }

  /** Open incidents as their cards show them: the same story, so the same age, colour and step. */
  private async openIncidents(passedOver: (record: UnreadableRecord) => void) {
    const open = await this.deps.store.listOpen(undefined, (id, error) =>
      passedOver({ kind: "incident", id, newer: isNewer(error) }),
    );
    const items = await Promise.all(
      open.map(async (incident) => {
        const link = await threadPermalink(this.deps.client, incident);
        return { story: await this.story(incident), permalink: link };
      }),
    );
    return { open, items };
  }

  private story(incident: Incident) {
    return loadStory({ ...this.deps.story, store: this.deps.store }, incident);
  }
}

/**
 * A table's incidents opened in the week, counted once each: the open ones and the closed ones the
 * history keeps, so "2 incidents" here is the count the recurring section states too.
 */
function weekCount(
  table: string,
  sinceMs: number,
  open: ReadonlyArray<{ id: string; table: string; openedAt: number }>,
  closed: ReadonlyArray<{ table: string; incidentId: string; openedAtMs: number }>,
): number {
  const ids = new Set<string>();
  for (const i of open) if (i.table === table && i.openedAt >= sinceMs) ids.add(i.id);
  for (const h of closed) if (h.table === table && h.openedAtMs >= sinceMs) ids.add(h.incidentId);
  return Math.max(1, ids.size);
}
