// Ordering and counting shared by the audit renderers: failures first, because they are what a
// person acts on.

import type { AuditCheck, AuditReport } from "../../../core/report/schema.js";
import { oneLine } from "../text-safety.js";

const RANK: Record<AuditCheck["status"], number> = { fail: 0, warn: 1, pass: 2 };

export function sortedChecks(report: AuditReport): AuditCheck[] {
  return report.checks
    .map((check, index) => ({ check, index }))
    .sort((a, b) => RANK[a.check.status] - RANK[b.check.status] || a.index - b.index)
    .map(({ check }) => check);
}

export function auditCounts(report: AuditReport): Record<AuditCheck["status"], number> {
  const counts = { fail: 0, warn: 0, pass: 0 };
  for (const check of report.checks) counts[check.status] += 1;
  return counts;
}

/** `key=value` pairs, unset values shown as such, cut after `max` entries. */
export function formatValues(values: AuditCheck["values"], max = 4): string {
  const entries = Object.entries(values);
  const shown = entries
    .slice(0, max)
    .map(([key, value]) => `${oneLine(key, 80)}=${value === null ? "unset" : oneLine(value, 80)}`);
  if (entries.length > max) shown.push(`… and ${entries.length - max} more`);
  return shown.join(", ");
}
