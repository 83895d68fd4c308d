// The one Slack job left on BullMQ: filling the "Show all evidence" modal the receiver opened (a
// view, the named exception to "everything goes through the outbox"). Also the views the outbox's
// poster renders its messages from: the status card, a diagnosis and its chart, a result, an
// ephemeral answer.

import { describeTimeline, isTimelineChart, type TimelineChart } from "../../core/chart/timeline.js";
import type { IncidentHistory } from "../../core/history/record.js";
import { STEP_IDS, type StepId } from "../../core/ids.js";
import type { Incident } from "../../core/incident/model.js";
import { AuditReportSchema, type Report, ReportSchema } from "../../core/report/schema.js";
import { unansweredSources } from "../../core/report/unanswered.js";
import { sourceWords } from "../../core/words/labels.js";
import type { LogLike } from "../../services/incident/deps.js";
import type { HistoryPort, TimelineFile } from "../../services/ports.js";
import { readCardSummary } from "../../services/remediation/views.js";
import type { EphemeralReply, SlackJob } from "../queue/jobs.js";
import type { IncidentStore } from "../store/incident-store.js";
import { fillPlaceholder, renderModalNote } from "./placeholder.js";
import type { SlackMessage } from "./render/block-kit.js";
import { cardCause } from "./render/card-cause.js";
import { escapeMrkdwn } from "./render/limits.js";
import type { HistoryEntry, HistoryIncident, StatusCardView, StatusListItem } from "./render/view-models.js";
import type { Renderers } from "./renderers.js";
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

/** The newest report of an incident that still parses: the card, App Home and status read it. */
export async function latestReport(
  deps: Pick<SlackJobDeps, "store">,
  incident: Incident,
): Promise<Report | undefined> {
  for (let n = incident.diagnoses; n >= 1; n--) {
    const parsed = ReportSchema.safeParse(await deps.store.getReport(incident.id, n));
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

export function cardView(incident: Incident, report: Report | undefined, now: number): StatusCardView {
  const verdict = report?.findings.find((f) => f.id === report.verdict);
  // The cause line names who won the race (a root-cause finding), and only under a verdict that is
  // a race: a stopped coordinator or a checkpoint problem has its cause in the verdict itself.
  const cause = cardCause(report);
  let nowLine: string | undefined;
  if (incident.state === "diagnosing") nowLine = "reading the catalog, Flink, Kafka Connect and metrics";
  else if (incident.state === "awaiting-approval" && report?.nextStep)
    nowLine = `next step: "${report.nextStep.summary}"`;
  // The playbook walk, when one runs, says what happens now (approval, applying, check n of m).
  const walk = readCardSummary(incident.walk);
  if (walk?.nowLine !== undefined) nowLine = walk.nowLine;
  if (incident.tableUnknown && incident.state !== "resolved") {
    nowLine = "not a table the catalog or BOT_CONFIG knows; closes when its alerts resolve";
  } else if (incident.alertResolvedAt !== undefined && incident.state !== "resolved") {
    nowLine = `${nowLine ? `${nowLine}; ` : ""}the alert cleared, waiting for the writer's commits to resume`;
  } else if (
    incident.firingAlerts !== undefined &&
    incident.firingAlerts > 0 &&
    incident.state !== "resolved"
  ) {
    // The alerts of the table still firing, as the sender last told us.
    const alerts = `${incident.firingAlerts} alert${incident.firingAlerts === 1 ? "" : "s"} firing`;
    nowLine = `${nowLine ? `${nowLine}; ` : ""}${alerts}`;
  }
  return {
    table: incident.table,
    state: incident.state,
    verdictLine: verdict ? verdict.summary : report?.verdict,
    ...(cause ? { causeLine: cause.summary } : {}),
    nowLine,
    ...failingAndDown(report),
    openedAtMs: incident.openedAt,
    ...commitTiming(report),
    nowMs: now,
    ...(walk?.step ? { step: walk.step } : {}),
    ...(walk?.check ? { check: walk.check } : {}),
    ...(walk?.resolution && incident.state === "resolved" ? { resolution: walk.resolution } : {}),
    ...(walk?.openItems && incident.state === "resolved" ? { openItems: walk.openItems } : {}),
    ...(walk?.itemAction && incident.state === "resolved"
      ? { itemAction: walk.itemAction as StatusCardView["itemAction"] & object }
      : {}),
    ...(walk?.decision && incident.state === "awaiting-approval"
      ? {
          decision: {
            kind: walk.decision.kind,
            action: walk.decision.action as StatusCardView["itemAction"] & object,
          },
        }
      : {}),
  };
}

/** A healthy verdict means commits flow: the last commit is news, not the start of a stall. */
function commitTiming(report: Report | undefined): Pick<StatusCardView, "stalledSinceMs" | "commitsFlowing"> {
  if (!report) return {};
  const lastCommitMs = lastWriterCommitMs(report);
  if (report.verdict === "healthy") {
    const quietByDesign = report.findings.some((f) => f.id === "writer-idle");
    return {
      commitsFlowing: {
        ...(lastCommitMs === undefined ? {} : { lastCommitMs }),
        ...(quietByDesign ? { quietByDesign } : {}),
      },
    };
  }
  return lastCommitMs === undefined ? {} : { stalledSinceMs: lastCommitMs };
}

/** The failing writer as people name it, and the sources that did not answer. */
function failingAndDown(report: Report | undefined): Pick<StatusCardView, "failingWriter" | "downSources"> {
  if (!report) return {};
  const w = report.writer;
  const down = unansweredSources(report.sources).map((u) => `${sourceWords(u.kind, u.source)}: ${u.reason}`);
  const failing =
    w && report.verdict !== "healthy"
      ? `${
          w.kind === "connect"
            ? `Kafka Connect connector ${w.id}`
            : `Flink job ${w.name ? `${w.name} (${w.id.slice(0, 4)}…)` : `${w.id.slice(0, 8)}…`}`
        }${w.cluster ? ` on ${w.cluster}` : ""}`
      : undefined;
  return {
    ...(failing ? { failingWriter: failing } : {}),
    ...(down.length > 0 ? { downSources: down } : {}),
  };
}

/**
 * The failing writer's newest snapshot time, whichever finding carries it (marked
 * writerLastCommitAt); older reports only had committedAt on the verdict's own evidence.
 */
function lastWriterCommitMs(report: Report): number | undefined {
  const named = report.writer?.lastCommitAt;
  if (named !== undefined && Number.isFinite(Date.parse(named))) return Date.parse(named);
  for (const finding of report.findings) {
    for (const item of finding.evidence) {
      const at = item.data.writerLastCommitAt;
      if (typeof at === "string" && Number.isFinite(Date.parse(at))) return Date.parse(at);
    }
  }
  const verdict = report.findings.find((f) => f.id === report.verdict);
  for (const item of verdict?.evidence ?? []) {
    const committedAt = item.data.committedAt;
    if (typeof committedAt === "string") {
      const ms = Date.parse(committedAt);
      if (Number.isFinite(ms)) return ms;
    }
  }
  return undefined;
}

/** The status card of the incident's current state. */
export async function renderCard(
  deps: Pick<SlackJobDeps, "store" | "render" | "now">,
  incident: Incident,
  slackDelayedMs?: number,
): Promise<SlackMessage> {
  const view = cardView(incident, await latestReport(deps, incident), deps.now());
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

/** An incident's line in `/iceberg status`, read as the card reads it: the same age and state. */
export function statusListItem(
  incident: Incident,
  report: Report | undefined,
  now: number,
  permalink: string | undefined,
): StatusListItem {
  const card = cardView(incident, report, now);
  return {
    incidentId: incident.id,
    table: incident.table,
    state: incident.state,
    openedAtMs: incident.openedAt,
    ...(card.stalledSinceMs !== undefined ? { stalledSinceMs: card.stalledSinceMs } : {}),
    ...(card.commitsFlowing ? { commitsFlowing: card.commitsFlowing } : {}),
    ...(card.openItems ? { openItems: card.openItems } : {}),
    ...(card.step ? { step: card.step } : {}),
    ...(permalink !== undefined ? { permalink } : {}),
  };
}

/** An ephemeral answer, rendered from the state it reports on when it is sent. */
export async function replyMessage(
  deps: Pick<SlackJobDeps, "client" | "store" | "render" | "now" | "history">,
  reply: EphemeralReply,
): Promise<SlackMessage> {
  switch (reply.kind) {
    case "unknown-table":
      return deps.render.usageError(reply);
    case "failed":
    case "rate-limited":
      return deps.render.usageError(reply);
    case "status": {
      const incidents = await deps.store.listOpen();
      const links = await Promise.all(incidents.map((i) => threadPermalink(deps.client, i)));
      const reports = await Promise.all(incidents.map((i) => latestReport(deps, i)));
      const now = deps.now();
      return deps.render.statusList({
        nowMs: now,
        incidents: incidents.map((i, index) => statusListItem(i, reports[index], now, links[index])),
      });
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
