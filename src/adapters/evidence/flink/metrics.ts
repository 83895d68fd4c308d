// Finding the Iceberg committer's metrics among a vertex's metric ids. Flink filters space, '.',
// ':' and ',' to '_' in every scope part, so the id reads
// `<subtask>.<operator>.IcebergFilesCommitter.table.<filtered table>.<metric>`, and the sink names
// the table with its catalog (`iceberg.db.events`), hence the match on a name that ends with ours.

import type { CommitterMetrics } from "../../../core/evidence/model.js";

const COMMITTER_GAUGES = [
  "elapsedSecondsSinceLastSuccessfulCommit",
  "lastCommitDurationMs",
  "lastCheckpointDurationMs",
] as const;
const COMMITTER_COUNTERS = [
  "committedDataFilesCount",
  "committedDataFilesByteCount",
  "committedDeleteFilesCount",
] as const;

type CommitterMetricName = (typeof COMMITTER_GAUGES)[number] | (typeof COMMITTER_COUNTERS)[number];
const WANTED = new Set<string>([...COMMITTER_GAUGES, ...COMMITTER_COUNTERS]);

const COMMITTER_ID = /^(?:(\d+)\.)?([^.]+)\.IcebergFilesCommitter\.table\.([^.]+)\.([A-Za-z]+)$/;

export interface CommitterMetricId {
  id: string;
  vertexId: string;
  subtask?: number;
  operatorName: string;
  metricTable: string;
  metric: CommitterMetricName;
}

export function parseCommitterMetricId(id: string, vertexId: string): CommitterMetricId | undefined {
  const match = COMMITTER_ID.exec(id);
  if (!match) return undefined;
  const [, subtask, operatorName, metricTable, metric] = match;
  if (!operatorName || !metricTable || !metric || !WANTED.has(metric)) return undefined;
  return {
    id,
    vertexId,
    subtask: subtask === undefined ? undefined : Number(subtask),
    operatorName,
    metricTable,
    metric: metric as CommitterMetricName,
  };
}

/** True when the metric's table segment names our table, with or without a catalog in front. */
function metricTableMatches(metricTable: string, filteredTable: string): boolean {
  return metricTable === filteredTable || metricTable.endsWith(`_${filteredTable}`);
}

/** The distinct table segments among matching ids; an exact match wins over prefixed ones. */
export function pickMetricTable(candidates: readonly CommitterMetricId[], filteredTable: string): string[] {
  const tables = [...new Set(candidates.map((c) => c.metricTable))].filter((t) =>
    metricTableMatches(t, filteredTable),
  );
  return tables.includes(filteredTable) ? [filteredTable] : tables.sort();
}

/** Folds per-subtask values into one: gauges take the worst (largest), counters add up. */
export function foldCommitterMetrics(
  ids: readonly CommitterMetricId[],
  values: ReadonlyMap<string, number>,
): CommitterMetrics | undefined {
  const first = ids[0];
  if (!first) return undefined;
  const out: CommitterMetrics = {
    vertexId: first.vertexId,
    operatorName: first.operatorName,
    metricTable: first.metricTable,
  };
  for (const id of ids) {
    const value = values.get(id.id);
    if (value === undefined || !Number.isFinite(value)) continue;
    const previous = out[id.metric];
    const gauge = (COMMITTER_GAUGES as readonly string[]).includes(id.metric);
    out[id.metric] = previous === undefined ? value : gauge ? Math.max(previous, value) : previous + value;
  }
  return out;
}
