// A closed incident as the history keeps it: a competing-appends conflict on a Flink writer,
// resolved, with whatever a test or benchmark changes laid over it.

import { HISTORY_FORMAT, type IncidentHistory } from "../../src/core/history/record.js";

export function closedIncident(
  incidentId: string,
  closedAtMs: number,
  overrides: Partial<IncidentHistory> = {},
): IncidentHistory {
  return {
    format: HISTORY_FORMAT,
    incidentId,
    table: "db.events",
    channel: "C1",
    state: "resolved",
    openedAtMs: closedAtMs - 600_000,
    closedAtMs,
    verdict: "commit-conflict",
    findings: ["commit-conflict", "competing-appends"],
    triage: "commit-conflict",
    rootCause: "competing-appends",
    writerKind: "flink",
    steps: [],
    openItems: [],
    ...overrides,
  };
}
