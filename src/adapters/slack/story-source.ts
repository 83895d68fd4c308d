// What is stored about an incident, read once and turned into its story (core/story): the
// incident hash, its newest and first reports, the saved remediation record, what people wrote in the
// thread and who said "I'm on it". The card, App Home and `/iceberg status` are rendered from it.

import type { Incident } from "../../core/incident/model.js";
import type { RemediationRecord, Versioned } from "../../core/remediation/record.js";
import { type Report, ReportSchema } from "../../core/report/schema.js";
import type { IncidentStory } from "../../core/story/model.js";
import { type StoryTellers, tellStory } from "../../services/story.js";

export interface StorySources extends StoryTellers {
  store: { getReport(id: string, n: number): Promise<unknown> };
  /** The remediation records (absent: a story without the playbook walk). */
  walks?: { get(incidentId: string): Promise<Versioned<RemediationRecord> | undefined> };
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
  const [report, first, walk] = await Promise.all([
    latestReport(deps, incident),
    firstReport(deps, incident),
    deps.walks?.get(incident.id).catch(() => undefined),
  ]);
  return tellStory(deps, { incident, report, firstReport: first, walk: walk?.value });
}
