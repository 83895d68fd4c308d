// The Prometheus part of an investigation: the committer, checkpoint and sink-lag series are read
// for every job and consumer while the other sources answer, then narrowed to the writer's own
// once Flink and Connect have named it.

import type {
  Evidence,
  FlinkEvidence,
  MetricPoint,
  PrometheusEvidence,
  TableRef,
} from "../../core/evidence/model.js";
import type { PrometheusPort } from "../ports.js";
import { namesTable } from "./writers.js";

const COMMITTER_SERIES = {
  lastCommitDurationMs:
    "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_lastCommitDurationMs",
  elapsedSecondsSinceLastSuccessfulCommit:
    "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_elapsedSecondsSinceLastSuccessfulCommit",
  // A counter (exported as a gauge): turned into files per commit below.
  committedDataFilesCount:
    "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_committedDataFilesCount",
} as const;
/** Job scope (the Prometheus reporter's jobmanager_job logical scope), labelled job_id and job_name. */
const CHECKPOINT_DURATION = "flink_jobmanager_job_lastCheckpointDuration";
/**
 * The sink task's consumer lag as the Prometheus JMX exporter names Kafka's
 * consumer-fetch-manager-metrics records-lag-max; Connect's sink consumers are
 * client_id="connector-consumer-<connector>-<task>".
 */
const SINK_LAG = "kafka_consumer_consumer_fetch_manager_metrics_records_lag_max";
const HISTORY_MS = 3 * 60 * 60 * 1000;
const HISTORY_STEP_SECONDS = 300;

/**
 * Asks for each committer metric by name and keeps the series whose `table` label is ours;
 * the label holds the sink's table name with dots turned into underscores.
 */
export async function gatherPrometheus(
  prometheus: PrometheusPort,
  table: TableRef,
  endMs: number,
  configuredJob: string | undefined,
): Promise<GatheredPrometheus> {
  const series: Record<string, MetricPoint[]> = {};
  const range = (metric: string) =>
    prometheus.queryRange(metric, endMs - HISTORY_MS, endMs, HISTORY_STEP_SECONDS);
  const [checkpointDurations, sinkLag] = await Promise.all([
    range(CHECKPOINT_DURATION),
    range(SINK_LAG),
    ...Object.entries(COMMITTER_SERIES).map(async ([name, metric]) => {
      const ours = ownSeries(await range(metric), table);
      if (ours.length === 0) return;
      const merged = mergeMax(ours.map((s) => s.points));
      if (name === "committedDataFilesCount") series.committedDataFilesPerCommit = perCommit(merged);
      else series[name] = merged;
    }),
  ]);
  return { series, checkpointDurations: checkpointDurations ?? [], sinkLag: sinkLag ?? [], configuredJob };
}

type LabelledSeries = { labels: Record<string, string>; points: MetricPoint[] };

interface GatheredPrometheus extends PrometheusEvidence {
  /** Job-scope series for every job; the writer's is picked once Flink named it. */
  checkpointDurations: LabelledSeries[];
  /** Consumer lag of every client; the sink connector's tasks are picked once Connect named it. */
  sinkLag: LabelledSeries[];
  configuredJob?: string;
}

/** The writer's own series among those read for every job and consumer. */
export function finishPrometheus(gathered: GatheredPrometheus, evidence: Evidence): PrometheusEvidence {
  const series = { ...gathered.series };
  const jobId = evidence.flink?.writer?.job.jobId ?? gathered.configuredJob;
  const checkpoints = gathered.checkpointDurations.filter((s) => jobId && s.labels.job_id === jobId);
  if (checkpoints.length > 0) series.lastCheckpointDuration = mergeMax(checkpoints.map((s) => s.points));
  const connector = evidence.connect?.connector.name;
  const lag = gathered.sinkLag.filter(
    (s) => connector && s.labels.client_id?.startsWith(`connector-consumer-${connector}-`),
  );
  if (lag.length > 0) series.connectSinkLag = mergeMax(lag.map((s) => s.points));
  return { series };
}

/**
 * Files per commit from the committed-files counter: each rise between two samples is what the
 * commits in that step added (one commit per step at the usual checkpoint cadence). A fall is a
 * restarted counter and is skipped; flat steps had no commit.
 */
function perCommit(counter: readonly MetricPoint[]): MetricPoint[] {
  const out: MetricPoint[] = [];
  for (let i = 1; i < counter.length; i++) {
    const added = counter[i]!.value - counter[i - 1]!.value;
    if (added > 0) out.push({ atMs: counter[i]!.atMs, value: added });
  }
  return out;
}

function ownSeries<T extends { labels: Record<string, string> }>(found: readonly T[], table: TableRef): T[] {
  const labelled = found.filter((s) => s.labels.table !== undefined && namesTable(s.labels.table, table));
  const tables = new Set(labelled.map((s) => s.labels.table));
  // Two different tables that both end with our name cannot be told apart: keep neither.
  return tables.size === 1 ? labelled : [];
}

/** Several series for one table (one per subtask): the largest value at each instant. */
function mergeMax(seriesList: readonly MetricPoint[][]): MetricPoint[] {
  const byTime = new Map<number, number>();
  for (const points of seriesList) {
    for (const p of points)
      byTime.set(p.atMs, Math.max(byTime.get(p.atMs) ?? Number.NEGATIVE_INFINITY, p.value));
  }
  return [...byTime.entries()].sort((a, b) => a[0] - b[0]).map(([atMs, value]) => ({ atMs, value }));
}

export function addHistories(flink: FlinkEvidence | undefined, prometheus: PrometheusEvidence): void {
  const committer = flink?.writer?.committer;
  if (!committer) return;
  const durations = prometheus.series.lastCommitDurationMs;
  const elapsed = prometheus.series.elapsedSecondsSinceLastSuccessfulCommit;
  if (durations) committer.lastCommitDurationHistory = durations;
  if (elapsed) committer.elapsedSecondsHistory = elapsed;
}
