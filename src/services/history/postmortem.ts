// The postmortem, drafted when an incident resolves: a rendering of the incident's story with the
// steps of the history record the resolution wrote, and the two commit timelines (the diagnosis's
// and the one after recovery) as its pictures. Said in Slack through the outbox;
// `iceberg-bot postmortem` builds the same one to write it to disk.

import { describeTimeline, isTimelineChart, type TimelineChart } from "../../core/chart/timeline.js";
import { buildPostmortem, type Postmortem, type PostmortemPicture } from "../../core/history/postmortem.js";
import type { IncidentHistory } from "../../core/history/record.js";
import { type FindingId, ROOT_CAUSE_IDS } from "../../core/ids.js";
import type { Incident } from "../../core/incident/model.js";
import type { WalkRecord } from "../../core/playbook/record.js";
import type { Report } from "../../core/report/schema.js";
import type { IncidentStory } from "../../core/story/model.js";
import { mergeOpenItems, openItemsOf } from "../../core/verification/open-items.js";
import type { HistoryPort, IncidentStorePort, WalkStorePort } from "../ports.js";

export interface PostmortemDeps {
  history?: Pick<HistoryPort, "get">;
  store: Pick<IncidentStorePort, "get" | "getReport" | "getChart">;
  walks: Pick<WalkStorePort, "get">;
}

export interface PostmortemDraft {
  postmortem: Postmortem;
  /** The pictures' charts, by file name (for a caller that draws them). */
  charts: Map<string, TimelineChart>;
}

/** The postmortem of a closed incident, or undefined when its history record is not there. */
export async function draftPostmortem(
  deps: PostmortemDeps,
  incidentId: string,
  recoveryRef?: string,
): Promise<PostmortemDraft | undefined> {
  const incident = await deps.store.get(incidentId);
  if (!incident || !deps.history) return undefined;
  const history = await deps.history.get(incident.table, incidentId);
  if (!history) return undefined;
  const report = (await deps.store.getReport(incidentId, 1)) as Report | undefined;
  const walk = (await deps.walks.get(incidentId))?.value;
  const n = Math.max(1, incident.diagnoses);
  const pictures: PostmortemPicture[] = [];
  const charts = new Map<string, TimelineChart>();
  const before = await deps.store.getChart(incidentId, n);
  if (isTimelineChart(before)) {
    const name = `${incident.table}-commits-${n}.png`;
    pictures.push({
      name,
      title: `Commits to ${incident.table}`,
      altText: describeTimeline(before),
      ref: `diagnosis-${n}-chart`,
    });
    charts.set(name, before);
  }
  const after = await deps.store.getChart(incidentId, "recovery");
  if (isTimelineChart(after)) {
    const name = `${incident.table}-commits-after-change.png`;
    const proposal = recoveryRef ?? lastProposal(walk);
    pictures.push({
      name,
      title: `Commits to ${incident.table} after the change`,
      altText: describeTimeline(after),
      ...(proposal ? { ref: `recovery-chart-${proposal}` } : {}),
    });
    charts.set(name, after);
  }
  return {
    postmortem: buildPostmortem({
      story: storyForPostmortem(incident, history, report, walk),
      history,
      pictures,
    }),
    charts,
  };
}

const msOf = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
};
const ROOT = new Set<string>(ROOT_CAUSE_IDS);

/**
 * The story's facts the postmortem reads, from what is stored. Stands in for the one storyOf
 * (core/story) until every surface renders it; the postmortem reads only IncidentStory.
 */
function storyForPostmortem(
  incident: Incident,
  history: IncidentHistory,
  report: Report | undefined,
  record: WalkRecord | undefined,
): IncidentStory {
  const verdict = report?.findings.find((f) => f.id === report.verdict);
  const cause = report?.findings.find((f) => ROOT.has(f.id));
  const lastGood = msOf(report?.writer?.lastCommitAt);
  const quote = report?.findings.find((f) => f.quote?.firstSeen)?.quote;
  const firstFailure = msOf(quote?.firstSeen) ?? msOf(report?.writer?.failedAt);
  const runs = record ? [...record.walk.history, ...(record.walk.current ? [record.walk.current] : [])] : [];
  const fixed = history.steps.find((s) => s.outcome === "fixed");
  const fixedRun = fixed
    ? runs.find((r) => r.stepId === fixed.stepId && r.proposedAtMs === fixed.proposedAtMs)
    : undefined;
  const actors = runs
    .flatMap((r) => [
      ...r.approvals.map((a) => ({ user: a.user, atMs: a.atMs })),
      ...(r.appliedBy && r.appliedBy !== "bot" && r.appliedAtMs !== undefined
        ? [{ user: r.appliedBy, atMs: r.appliedAtMs }]
        : []),
    ])
    .sort((a, b) => a.atMs - b.atMs);
  const writer = report?.writer;
  return {
    incidentId: incident.id,
    table: incident.table,
    channel: incident.channel,
    workflow: incident.state,
    openedAtMs: incident.openedAt,
    closedAtMs: history.closedAtMs,
    health: "unknown",
    ...(writer
      ? {
          writer: {
            kind: writer.kind,
            id: writer.id,
            ...(writer.name ? { name: writer.name } : {}),
            ...(writer.cluster ? { cluster: writer.cluster } : {}),
          },
        }
      : {}),
    ...(lastGood !== undefined ? { lastGoodCommitMs: lastGood } : {}),
    ...(firstFailure !== undefined ? { firstFailureMs: firstFailure } : {}),
    unseen: [],
    ...(report ? { verdict: { id: report.verdict, summary: verdict?.summary ?? report.verdict } } : {}),
    ...(cause ? { cause: { id: cause.id as FindingId, summary: cause.summary } } : {}),
    evidence: [...(verdict?.evidence ?? []), ...(cause?.evidence ?? [])].map((e) => e.detail),
    steps: fixedRun
      ? [
          {
            stepId: fixedRun.stepId,
            index: 1,
            state: "done",
            change: fixedRun.change,
            proposedAtMs: fixedRun.proposedAtMs,
            approvedBy: fixedRun.approvals.map((a) => a.user),
            checks: [],
          },
        ]
      : [],
    ...(fixed?.recoveredAtMs !== undefined
      ? {
          recovery: {
            atMs: fixed.recoveredAtMs,
            ...(fixed.appliedAtMs !== undefined ? { changeAtMs: fixed.appliedAtMs } : {}),
            ...(fixed.recoveredAfterMs !== undefined ? { afterChangeMs: fixed.recoveredAfterMs } : {}),
            credit: "fixed" as const,
            stepId: fixed.stepId,
          },
        }
      : {}),
    openItems: mergeOpenItems(record?.openItems, report ? openItemsOf(report) : []).map((i) => ({
      ...i,
      kind: i.kind ?? "todo",
    })),
    ...(actors[0] ? { owner: { user: actors[0].user, sinceMs: actors[0].atMs, how: "acted" as const } } : {}),
    remarks: [],
    alerts: { received: incident.alertCount },
  };
}

function lastProposal(walk: WalkRecord | undefined): string | undefined {
  return walk?.proposals[walk.proposals.length - 1]?.id;
}
