// Which table an alert is about. Labels are tried in order of trust: an explicit table label,
// Flink's sanitised metric form, then the writer (Flink job name, connector) mapped through
// BOT_CONFIG. Grouping keys on the resolved table, never on the alert's label set.

import { isValidTableName, sanitizeForMetric } from "../table-name.js";

export interface WriterMap {
  /** Configured tables with the Flink job name and connector that write them. */
  tables: Record<string, { flinkJobName?: string; connector?: string }>;
}

export type TableResolution =
  | { table: string; via: "label" | "sanitised" | "job_name" | "connector" }
  | { table?: undefined; reason: string };

const TABLE_LABELS = ["table", "iceberg_table"] as const;

/**
 * Resolves an alert's labels to a table name. `knownTables` (config and, when reachable, the
 * catalog) lets a catalog-qualified or sanitised label match the table people know.
 */
export function resolveAlertTable(
  labels: Record<string, string>,
  writers: WriterMap,
  knownTables: readonly string[],
): TableResolution {
  for (const key of TABLE_LABELS) {
    const raw = labels[key]?.trim();
    if (!raw) continue;
    const known = matchKnownTable(raw, knownTables);
    if (known) return { table: known, via: "label" };
    if (isValidTableName(raw)) return { table: raw, via: "label" };
    const fromSanitised = matchSanitised(raw, knownTables);
    if (fromSanitised) return { table: fromSanitised, via: "sanitised" };
  }
  const jobName = labels.job_name?.trim();
  if (jobName) {
    const table = findWriter(writers, (w) => w.flinkJobName === jobName);
    if (table) return { table, via: "job_name" };
  }
  const connector = labels.connector?.trim();
  if (connector) {
    const table = findWriter(writers, (w) => w.connector === connector);
    if (table) return { table, via: "connector" };
  }
  return {
    reason:
      "no table label (table, iceberg_table) and no job_name or connector label that BOT_CONFIG maps to a table",
  };
}

/**
 * Exact match, or a catalog-qualified name (`iceberg.db.events`) whose tail is a known table.
 * Failing that, the same ignoring case, as Hive, Glue and Spark's catalogs compare identifiers
 * (`DB.EVENTS` is `db.events`): the known spelling is used, so one table is one incident. A case
 * that fits two known tables (a case-sensitive catalog holding both) matches neither.
 */
export function matchKnownTable(raw: string, knownTables: readonly string[]): string | undefined {
  return (
    matchTail(raw, knownTables, (a, b) => a === b) ??
    matchTail(raw, knownTables, (a, b) => a.toLowerCase() === b.toLowerCase())
  );
}

function matchTail(
  raw: string,
  knownTables: readonly string[],
  same: (a: string, b: string) => boolean,
): string | undefined {
  const known = [...new Set(knownTables)];
  const exact = known.filter((t) => same(t, raw));
  if (exact.length > 0) return exact.length === 1 ? exact[0] : undefined;
  const candidates = known.filter((t) => raw.length > t.length && same(raw.slice(-t.length - 1), `.${t}`));
  // The longest tail wins: `a.b.events` over `b.events` when both are known.
  const sorted = candidates.sort((a, b) => b.length - a.length);
  if (sorted.length > 1 && sorted[0]!.length === sorted[1]!.length) return undefined;
  return sorted[0];
}

/** Flink's metric form `iceberg_db_events` against the sanitised known names (with or without catalog). */
function matchSanitised(raw: string, knownTables: readonly string[]): string | undefined {
  const hits = knownTables.filter((t) => {
    const s = sanitizeForMetric(t);
    return raw === s || raw.endsWith(`_${s}`);
  });
  return hits.sort((a, b) => b.length - a.length)[0];
}

function findWriter(
  writers: WriterMap,
  predicate: (w: { flinkJobName?: string; connector?: string }) => boolean,
): string | undefined {
  const names = Object.keys(writers.tables).sort();
  return names.find((name) => predicate(writers.tables[name] ?? {}));
}
