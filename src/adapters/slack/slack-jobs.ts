// The one Slack job left on BullMQ: filling the "Show all evidence" modal the receiver opened (a
// view, the named exception to "everything goes through the outbox"). Also the views the outbox's
// poster renders its messages from: the status card, a diagnosis and its chart, a result, an
// ephemeral answer.

import { describeTimeline, isTimelineChart, type TimelineChart } from "../../core/chart/timeline.js";
import type { IncidentHistory } from "../../core/history/record.js";
import { STEP_IDS, type StepId } from "../../core/ids.js";
import type { Incident } from "../../core/incident/model.js";
import { AuditReportSchema, type Report, ReportSchema } from "../../core/report/schema.js";
import { storyOf } from "../../core/story/story.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { HistoryPort, TimelineFile } from "../../services/ports.js";
import type { EphemeralReply, SlackJob } from "../queue/jobs.js";
import type { IncidentStore } from "../store/incident-store.js";
import { fillPlaceholder, renderModalNote } from "./placeholder.js";
import type { SlackMessage } from "./render/block-kit.js";
import { context } from "./render/blocks.js";
import { escapeMrkdwn } from "./render/limits.js";
import { cardViewOf, statusItemOf } from "./render/story-view.js";
import type { HistoryEntry, HistoryIncident, StatusCardView, StatusListItem } from "./render/view-models.js";
import type { Renderers } from "./renderers.js";
import { loadStory, type StorySources } from "./story-source.js";
import type { SlackClient } from "./web-client.js";

export interface SlackJobDeps {
  client: SlackClient;
  store: IncidentStore;
  render: Renderers;
  now: () => number;
  onSlackError?: (method: string) => void;
  log?: Pick<LogLike, "warn">;
  /** Each table's closed incidents, listed by /iceberg history. */
  history?: Pick<HistoryPort, "list">;
  /** Where the incident's story is read from besides the store (walks, playbooks, people). */
  story?: Omit<StorySources, "store">;
}

export async function runSlackJob(deps: SlackJobDeps, job: SlackJob): Promise<void> {
  if (job.kind === "evidence") {
    await fillEvidence(deps, job);
    return;
  }
  // Messages are outbox entries; a message job on this queue was queued by an earlier version.
  deps.log?.warn({ job: job.kind }, "a Slack message job from an earlier version, dropped");
}

/** The placeholder "Show all evidence" opened, filled with the whole report (or why there is none). */
async function fillEvidence(deps: SlackJobDeps, job: Extract<SlackJob, { kind: "evidence" }>) {
  const report = ReportSchema.safeParse(await deps.store.getReport(job.incidentId, job.n));
  const view = report.success
    ? deps.render.evidenceModal(report.data)
    : renderModalNote(
        "All evidence",
        "This report is no longer kept; run /iceberg diagnose for a fresh one.",
      );
  if (!(await fillPlaceholder(deps.client, job.viewId, view))) {
    deps.onSlackError?.("views.update");
    deps.log?.warn({ incidentId: job.incidentId, n: job.n }, "the evidence modal could not be filled in");
  }
}

/** The card's view of an incident from its incident hash and newest report alone (no walk). */
export function cardView(incident: Incident, report: Report | undefined, now: number): StatusCardView {
  return cardViewOf(storyOf({ incident, ...(report ? { report } : {}) }), now);
}

/** The status card of the incident's current state. */
export async function renderCard(
  deps: Pick<SlackJobDeps, "store" | "render" | "now" | "story">,
  incident: Incident,
  slackDelayedMs?: number,
): Promise<SlackMessage> {
  const story = await loadStory({ ...deps.story, store: deps.store }, incident);
  const view = cardViewOf(story, deps.now());
  return deps.render.statusCard(slackDelayedMs === undefined ? view : { ...view, slackDelayedMs });
}

/** Diagnosis n's commit timeline and the file it is shared as (undefined: none was drawn). */
export async function diagnosisChart(
  deps: Pick<SlackJobDeps, "store">,
  incidentId: string,
  n: number,
): Promise<{ chart: TimelineChart; file: TimelineFile } | undefined> {
  const chart = await deps.store.getChart(incidentId, n);
  if (!isTimelineChart(chart)) return undefined;
  return {
    chart,
    file: {
      name: `${chart.table}-commits-${n}.png`,
      title: `Commits to ${chart.table}`,
      altText: describeTimeline(chart),
    },
  };
}

/** The message of diagnosis n of an incident, as its thread shows it. */
export async function diagnosisMessage(
  deps: Pick<SlackJobDeps, "store" | "render">,
  incidentId: string,
  n: number,
): Promise<SlackMessage> {
  const report = ReportSchema.parse(await deps.store.getReport(incidentId, n));
  return deps.render.diagnosis(report, { evidenceRef: `${incidentId}|${n}` });
}

/** A slash command's result (a diagnosis or an audit). */
export function commandResultMessage(
  deps: Pick<SlackJobDeps, "render">,
  result: Extract<SlackJob, { kind: "command-result" }>["result"],
): SlackMessage {
  return result.type === "diagnosis"
    ? deps.render.diagnosis(ReportSchema.parse(result.report))
    : deps.render.audit(AuditReportSchema.parse(result.report));
}

/** An incident's line in `/iceberg status` from its hash and newest report alone (no walk). */
export function statusListItem(
  incident: Incident,
  report: Report | undefined,
  now: number,
  permalink: string | undefined,
): StatusListItem {
  return statusItemOf(storyOf({ incident, ...(report ? { report } : {}) }), now, permalink);
}

/** An ephemeral answer, rendered from the state it reports on when it is sent. */
export async function replyMessage(
  deps: Pick<SlackJobDeps, "client" | "store" | "render" | "now" | "history" | "story">,
  reply: EphemeralReply,
): Promise<SlackMessage> {
  switch (reply.kind) {
    case "unknown-table":
      return deps.render.usageError(reply);
    case "failed":
    case "rate-limited":
      return deps.render.usageError(reply);
    case "status": {
      const unreadable: string[] = [];
      const incidents = await deps.store.listOpen(undefined, (id) => unreadable.push(id));
      const links = await Promise.all(incidents.map((i) => threadPermalink(deps.client, i)));
      const stories = await Promise.all(
        incidents.map((i) => loadStory({ ...deps.story, store: deps.store }, i)),
      );
      const now = deps.now();
      const list = deps.render.statusList({
        nowMs: now,
        incidents: stories.map((story, index) => statusItemOf(story, now, links[index])),
      });
      return unreadable.length === 0 ? list : withUnreadableNote(list, unreadable);
    }
    case "history": {
      const rows = await deps.store.audit(reply.table);
      const entries: HistoryEntry[] = rows.map((row) => ({
        atMs: Number(row.at ?? 0),
        actor: row.actor ?? "bot",
        action: row.action ?? "note",
        detail: row.detail,
        ...((STEP_IDS as readonly string[]).includes(row.stepId ?? "")
          ? { stepId: row.stepId as StepId }
          : {}),
      }));
      const incidents = (await deps.history?.list(reply.table)) ?? [];
      return deps.render.history({
        table: reply.table,
        entries,
        incidents: incidents.map((h) => incidentLine(h)),
      });
    }
    case "text":
      return { text: escapeMrkdwn(reply.text), blocks: [] };
    case "fix-started": {
      const incident = await deps.store.get(reply.incidentId);
      const link = incident ? await threadPermalink(deps.client, incident) : undefined;
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

/** Link to the incident's thread; best effort, a list without links beats no list. */
export async function threadPermalink(
  client: Pick<SlackClient, "chat">,
  incident: Incident,
): Promise<string | undefined> {
  if (!incident.rootTs) return undefined;
  try {
    const result = await client.chat.getPermalink({ channel: incident.channel, message_ts: incident.rootTs });
    return result.permalink;
  } catch {
    return undefined;
  }
}

/** One past incident as /iceberg history lists it: when, what, and the step that fixed it. */
function incidentLine(h: IncidentHistory): HistoryIncident {
  const fixed = h.steps.find((s) => s.outcome === "fixed");
  return {
    incidentId: h.incidentId,
    openedAtMs: h.openedAtMs,
    closedAtMs: h.closedAtMs,
    state: h.state,
    ...(h.triage ? { triage: h.triage } : {}),
    ...(h.rootCause ? { rootCause: h.rootCause } : {}),
    ...(fixed ? { fixedBy: fixed.stepId } : {}),
    ...(fixed?.recoveredAfterMs !== undefined ? { fixedAfterMs: fixed.recoveredAfterMs } : {}),
    didNotHelp: h.steps.filter((s) => s.outcome === "did-not-help").map((s) => s.stepId),
  };
}

/**
 * The status list with a line naming the open incidents it could not read: said to whoever asked,
 * with the rest of the list, rather than failing the whole answer.
 */
function withUnreadableNote(message: SlackMessage, ids: readonly string[]): SlackMessage {
  const names = ids.map((id) => `\`${escapeMrkdwn(id)}\``).join(", ");
  const note =
    `${ids.length === 1 ? "Incident" : "Incidents"} ${names} could not be read and ${ids.length === 1 ? "is" : "are"} left out of this list ` +
    "(stored_record_invalid; the bot's log names the field, docs/operations.md says what to do).";
  return { text: `${message.text}\n${note}`, blocks: [...message.blocks, context(note)] };
}
