// When an incident closes, its story goes into the table's history (core/history/record.ts): the
// first diagnosis, each step proposed and what came of it. Best effort: the incident is already
// closed and a missing history record is only logged.

import { historyOf, type IncidentHistory } from "../../core/history/record.js";
import type { RemediationRecord } from "../../core/remediation/record.js";
import type { Report } from "../../core/report/schema.js";
import { asCodedError } from "../../errors.js";
import type { LogLike } from "../incident/deps.js";
import type { HistoryPort, IncidentStorePort } from "../ports.js";

export interface HistoryDeps {
  history?: HistoryPort;
  store: Pick<IncidentStorePort, "get" | "getReport" | "timeline">;
  log: LogLike;
}

/** Builds and saves the closed incident's history record; returns it (undefined when not kept). */
export async function recordIncidentHistory(
  deps: HistoryDeps,
  record: RemediationRecord,
  state: "resolved" | "stopped",
  closedAtMs: number,
): Promise<IncidentHistory | undefined> {
  if (!deps.history) return undefined;
  try {
    const incident = await deps.store.get(record.incidentId);
    if (!incident) return undefined;
    const report = (await deps.store.getReport(record.incidentId, 1)) as Report | undefined;
    const timeline = await deps.store.timeline(record.incidentId);
    const diagnosedAtMs = timeline.find((e) => e.kind === "diagnosis")?.at;
    const history = historyOf({
      incident,
      state,
      closedAtMs: incident.resolvedAt ?? closedAtMs,
      walk: record,
      ...(report ? { report } : {}),
      ...(diagnosedAtMs !== undefined ? { diagnosedAtMs: Number(diagnosedAtMs) } : {}),
    });
    await deps.history.save(history);
    return history;
  } catch (error) {
    deps.log.warn(
      { incidentId: record.incidentId, err: asCodedError(error).message },
      "incident history not recorded",
    );
    return undefined;
  }
}
