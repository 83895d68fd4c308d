// An incident's one story (core/story), told from what the caller read (the incident, its reports,
// the remediation record) with the walk's playbook, what people wrote in the thread and who said "I'm on
// it". The card, App Home, `/iceberg status` and the postmortem all tell it here.

import type { PlaybookSet } from "../core/remediation/schema.js";
import type { IncidentStory, StoryRemark } from "../core/story/model.js";
import type { Claim } from "../core/story/owner.js";
import { type StoryInput, storyOf } from "../core/story/story.js";

export interface StoryTellers {
  playbooks?: Pick<PlaybookSet, "playbooks">;
  /** What people said in the thread and who claimed the incident (absent: neither is told). */
  people?: {
    remarks(incidentId: string): Promise<StoryRemark[]>;
    claim(incidentId: string): Promise<Claim | undefined>;
  };
}

export async function tellStory(
  deps: StoryTellers,
  known: Pick<StoryInput, "incident" | "report" | "firstReport" | "walk">,
): Promise<IncidentStory> {
  const id = known.incident.id;
  const [remarks, claim] = await Promise.all([
    deps.people?.remarks(id).catch(() => []),
    deps.people?.claim(id).catch(() => undefined),
  ]);
  const walk = known.walk;
  const playbook = walk ? deps.playbooks?.playbooks.find((p) => p.id === walk.walk.playbookId) : undefined;
  return storyOf({ ...known, playbook, remarks, claim });
}
