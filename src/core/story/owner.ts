// Who is handling the incident: the person who said "I'm on it", else the first person who
// approved, did a step by hand or skipped one.

import type { RemediationRecord } from "../remediation/record.js";
import { runsOf } from "../remediation/walk.js";
import type { IncidentStory } from "./model.js";

export interface Claim {
  user: string;
  atMs: number;
}

export function ownerOf(
  claim: Claim | undefined,
  record: RemediationRecord | undefined,
): IncidentStory["owner"] {
  if (claim) return { user: claim.user, sinceMs: claim.atMs, how: "claimed" };
  if (!record) return undefined;
  const acts: Claim[] = [];
  for (const run of runsOf(record.walk)) {
    for (const a of run.approvals) acts.push({ user: a.user, atMs: a.atMs });
    if (run.appliedBy !== undefined && run.appliedBy !== "bot" && run.appliedAtMs !== undefined)
      acts.push({ user: run.appliedBy, atMs: run.appliedAtMs });
    if (run.skippedBy !== undefined)
      acts.push({ user: run.skippedBy, atMs: run.endedAtMs ?? run.proposedAtMs });
  }
  const first = acts.sort((a, b) => a.atMs - b.atMs)[0];
  return first ? { user: first.user, sinceMs: first.atMs, how: "acted" } : undefined;
}
