// Patterns across the fleet, from every table's history: tables that failed more than once in
// the retention window with their recurring cause, and incidents counted by table class and cause
// (labels from closed sets, so /metrics stays bounded whatever the number of tables).

import type { FindingId } from "../ids.js";
import type { IncidentHistory } from "./record.js";

export interface RecurringTable {
  table: string;
  incidents: number;
  /** The triage finding and root cause seen most often, and how many times. */
  triage?: FindingId;
  rootCause?: FindingId;
  times: number;
  lastAtMs: number;
}

/** Tables with more than one incident, most incidents first. */
export function recurringTables(histories: readonly IncidentHistory[], minIncidents = 2): RecurringTable[] {
  const byTable = new Map<string, IncidentHistory[]>();
  for (const h of histories) byTable.set(h.table, [...(byTable.get(h.table) ?? []), h]);
  const out: RecurringTable[] = [];
  for (const [table, list] of byTable) {
    if (list.length < minIncidents) continue;
    const causes = new Map<string, { h: IncidentHistory; n: number }>();
    for (const h of list) {
      const key = `${h.triage ?? ""}|${h.rootCause ?? ""}`;
      const seen = causes.get(key);
      causes.set(key, { h: seen?.h ?? h, n: (seen?.n ?? 0) + 1 });
    }
    const top = [...causes.values()].sort((a, b) => b.n - a.n)[0]!;
    out.push({
      table,
      incidents: list.length,
      ...(top.h.triage ? { triage: top.h.triage } : {}),
      ...(top.h.rootCause ? { rootCause: top.h.rootCause } : {}),
      times: top.n,
      lastAtMs: Math.max(...list.map((h) => h.openedAtMs)),
    });
  }
  return out.sort(
    (a, b) => b.incidents - a.incidents || b.lastAtMs - a.lastAtMs || a.table.localeCompare(b.table),
  );
}

export interface CauseCount {
  tableClass: IncidentHistory["writerKind"];
  triage: FindingId | "none";
  rootCause: FindingId | "none";
  count: number;
}

/** Incidents by table class (the writer's kind) and cause. */
export function countByCause(histories: readonly IncidentHistory[]): CauseCount[] {
  const counts = new Map<string, CauseCount>();
  for (const h of histories) {
    const tableClass = h.writerKind;
    const triage = h.triage ?? "none";
    const rootCause = h.rootCause ?? "none";
    const key = `${tableClass}|${triage}|${rootCause}`;
    const seen = counts.get(key);
    counts.set(key, { tableClass, triage, rootCause, count: (seen?.count ?? 0) + 1 });
  }
  return [...counts.values()];
}
