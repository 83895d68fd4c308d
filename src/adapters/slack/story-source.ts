// What is stored about an incident, read once and turned into its story (core/story): the
// incident hash, its newest and first reports, the saved walk record, what people wrote in the
// thread and who said "I'm on it". The card, App Home and `/iceberg status` are rendered from it.

import type { Incident } from "../../core/incident/model.js";
import type { Versioned, WalkRecord } from "../../core/remediation/record.js";
import type { PlaybookSet } from "../../core/remediation/schema.js";
import { type Report, ReportSchema } from "../../core/report/schema.js";
import type { IncidentStory, StoryRemark } from "../../core/story/model.js";
import type { Claim } from "../../core/story/owner.js";
import { storyOf } from "../../core/story/story.js";

export interface StorySources {
  store: { getReport(id: string, n: number): Promise<unknown> };
  /** The walk records (absent: a story without the playbook walk). */
  walks?: { get(incidentId: string): Promise<Versioned<WalkRecord> | undefined> };
  playbooks?: Pick<PlaybookSet, "playbooks">;
  /** What people said in the thread and who claimed the incident. */
  people?: {
    remarks(incidentId: string): Promise<StoryRemark[]>;
    claim(incidentId: string): Promise<Claim | undefined>;
  };
}

/** The newest report of an incident that still parses. */
async function latestReport(
  deps: Pick<StorySources, "store">,
  incident: Incident,
): Promise<Report | undefined> {
  for (let n = incident.diagnoses; n >= 1; n--) {
    const parsed = ReportSchema.safeParse(await deps.store.getReport(incident.id, n));
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

async function firstReport(deps: Pick<StorySources, "store">, incident: Incident) {
  if (incident.diagnoses < 1) return undefined;
  const parsed = ReportSchema.safeParse(await deps.store.getReport(incident.id, 1));
  return parsed.success ? parsed.data : undefined;
}

export async function loadStory(deps: StorySources, incident: Incident): Promise<IncidentStory> {
  const [report, first, walk, remarks, claim] = await Promise.all([
    latestReport(deps, incident),
    firstReport(deps, incident),
    deps.walks?.get(incident.id).catch(() => undefined),
    deps.people?.remarks(incident.id).catch(() => []),
    deps.people?.claim(incident.id).catch(() => undefined),
  ]);
  const record = walk?.value;
  const playbook = record
    ? deps.playbooks?.playbooks.find((p) => p.id === record.walk.playbookId)
    : undefined;
  return storyOf({
    incident,
    ...(report ? { report } : {}),
    ...(first ? { firstReport: first } : {}),
    ...(record ? { walk: record } : {}),
    ...(playbook ? { playbook } : {}),
    ...(remarks?.length ? { remarks } : {}),
    ...(claim ? { claim } : {}),
  });
}
