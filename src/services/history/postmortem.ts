// The postmortem, drafted when an incident resolves: a rendering of the incident's story with the
// steps of the history record the resolution wrote, and the two commit timelines (the diagnosis's
// and the one after recovery) as its pictures. Said in Slack through the outbox;
// `iceberg-bot postmortem` builds the same one to write it to disk.

import { describeTimeline, isTimelineChart, type TimelineChart } from "../../core/chart/timeline.js";
import { buildPostmortem, type Postmortem, type PostmortemPicture } from "../../core/history/postmortem.js";
import type { WalkRecord } from "../../core/remediation/record.js";
import type { Report } from "../../core/report/schema.js";
import type { HistoryPort, IncidentStorePort, WalkStorePort } from "../ports.js";
import { type StoryTellers, tellStory } from "../story.js";

export interface PostmortemDeps extends StoryTellers {
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
      story: await tellStory(deps, { incident, report, firstReport: report, walk }),
      history,
      pictures,
    }),
    charts,
  };
}

function lastProposal(walk: WalkRecord | undefined): string | undefined {
  return walk?.proposals[walk.proposals.length - 1]?.id;
}
