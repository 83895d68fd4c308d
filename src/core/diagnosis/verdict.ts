// One verdict per report, chosen by this priority (first match wins):
//   1. commit-state-unknown         never restart or retry before knowing whether the commit landed
//   2. commit-error                 the exception names a cause a restart would repeat
//   3. connect-coordinator-stopped  nothing commits until the coordinator runs again
//   4. commit-not-attempted         a checkpoint problem; commit fixes would not help
//   5. validation-conflict          needs a re-run and an isolation decision, not retries
//   6. commit-conflict              retries ran out against other committers
//   7. commit-failing               commits stopped for a reason not narrowed further
//   8. writer-never-committed       the first commit never landed
//   9. healthy (writer-idle is a note beside healthy, never a verdict of its own)
// When no triage rule fired: commit-failing if the writer is known to be stale, else healthy.

import type { FindingId, TriageId } from "../ids.js";
import type { Finding } from "../report/schema.js";

export const VERDICT_PRIORITY: readonly TriageId[] = [
  "commit-state-unknown",
  "commit-error",
  "connect-coordinator-stopped",
  "commit-not-attempted",
  "validation-conflict",
  "commit-conflict",
  "commit-failing",
  "writer-never-committed",
  "healthy",
  "writer-idle",
];

export function pickVerdict(
  findings: readonly (Pick<Finding, "id"> & Partial<Pick<Finding, "severity">>)[],
  writerStale: boolean | null = null,
): TriageId {
  // An informational finding is a note (a first commit not due yet), never the verdict.
  const fired = new Set<FindingId>(
    findings.filter((f) => f.severity !== "info" || f.id === "healthy").map((f) => f.id),
  );
  for (const id of VERDICT_PRIORITY) if (fired.has(id) && id !== "writer-idle") return id;
  return writerStale === true ? "commit-failing" : "healthy";
}
