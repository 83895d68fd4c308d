// Gathering evidence about one table: the catalog first (it names the writers), then Flink,
// Kafka Connect and Prometheus in parallel, each under its own deadline. A source that fails is
// recorded as unavailable with its reason; only when no source answers at all is it an error.

import type {
  ConnectEvidence,
  Evidence,
  FlinkEvidence,
  MetricPoint,
  PrometheusEvidence,
  SourceStatus,
  TableEvidence,
  TableRef,
} from "../core/evidence/model.js";
import type { SourceName } from "../core/ids.js";
import { formatTableName } from "../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import { withDeadline } from "./investigate-deadline.js";
import { resolveTable, tableRefWithoutCatalog } from "./investigate-resolve.js";
import { namesTable, pickConnector, pickFlinkWriter, recentFlinkWriters } from "./investigate-writers.js";
import type { ConnectPort, EvidencePorts, FlinkPort, PrometheusPort } from "./ports.js";

export { resolveTable } from "./investigate-resolve.js";

export interface InvestigateRequest {
  table: string;
  flinkJob?: string;
  connector?: string;
  /** Deadline for each source's whole answer (several requests); default 15 s. */
  timeoutMs?: number;
}

export const DEFAULT_INVESTIGATE_TIMEOUT_MS = 15_000;

const COMMITTER_SERIES = {
  lastCommitDurationMs:
    "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_lastCommitDurationMs",
  elapsedSecondsSinceLastSuccessfulCommit:
    "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_elapsedSecondsSinceLastSuccessfulCommit",
} as const;
const HISTORY_MS = 3 * 60 * 60 * 1000;
const HISTORY_STEP_SECONDS = 300;

/** Errors about the table itself: no source can help, so they reach the person as they are. */
const TABLE_ERRORS = new Set<ErrorCode>([
  ErrorCode.TableNotFound,
  ErrorCode.TableAmbiguous,
  ErrorCode.TableNameInvalid,
]);

export async function investigate(
  ports: EvidencePorts,
  request: InvestigateRequest,
  now: () => number,
): Promise<Evidence> {
  const timeoutMs = request.timeoutMs ?? DEFAULT_INVESTIGATE_TIMEOUT_MS;
  const sources: Record<SourceName, SourceStatus> = {
    catalog: { status: "not-configured" },
    flink: { status: "not-configured" },
    connect: { status: "not-configured" },
    prometheus: { status: "not-configured" },
  };

  // Catalog first: it resolves the name and its snapshots say which Flink job writes the table.
  let table: TableRef | undefined;
  let catalog: TableEvidence | undefined;
  const catalogPort = ports.catalog;
  if (catalogPort) {
    const outcome = await timed("catalog", timeoutMs, now, async () => {
      const ref = await resolveTable(catalogPort, request.table);
      return { ref, evidence: await catalogPort.loadTable(ref) };
    });
    sources.catalog = outcome.status;
    if (outcome.value) {
      table = outcome.value.ref;
      catalog = outcome.value.evidence;
    } else if (outcome.error && TABLE_ERRORS.has(outcome.error.code)) {
      throw outcome.error;
    }
  }
  table ??= tableRefWithoutCatalog(request.table);
  const ref = table;

  const flinkPort = ports.flink;
  const connectPort = ports.connect;
  const prometheusPort = ports.prometheus;
  const [flink, connect, prometheus] = await Promise.all([
    flinkPort
      ? timed("flink", timeoutMs, now, () => gatherFlink(flinkPort, ref, catalog, request.flinkJob))
      : undefined,
    connectPort
      ? timed("connect", timeoutMs, now, () => gatherConnect(connectPort, ref, request.connector))
      : undefined,
    prometheusPort
      ? timed("prometheus", timeoutMs, now, () => gatherPrometheus(prometheusPort, ref, now()))
      : undefined,
  ]);
  if (flink) sources.flink = flink.status;
  if (connect) sources.connect = connect.status;
  if (prometheus) sources.prometheus = prometheus.status;

  const evidence: Evidence = { table: ref, collectedAtMs: now(), sources };
  if (catalog) evidence.catalog = catalog;
  if (flink?.value) evidence.flink = flink.value;
  if (connect?.value) evidence.connect = connect.value;
  if (prometheus?.value) {
    evidence.prometheus = prometheus.value;
    addHistories(evidence.flink, prometheus.value);
  }

  if (!Object.values(sources).some((s) => s.status === "ok")) throw noEvidence(ref, sources);
  return evidence;
}

interface Timed<T> {
  status: SourceStatus;
  value?: T;
  error?: CodedError;
}

async function timed<T>(
  source: SourceName,
  timeoutMs: number,
  now: () => number,
  run: () => Promise<T>,
): Promise<Timed<T>> {
  const started = now();
  try {
    const value = await withDeadline(source, timeoutMs, run);
    return { status: { status: "ok", latencyMs: Math.max(0, now() - started) }, value };
  } catch (thrown) {
    const error = asCodedError(thrown);
    return {
      status: {
        status: "unavailable",
        latencyMs: Math.max(0, now() - started),
        error: error.message,
        errorCode: error.code,
      },
      error,
    };
  }
}

async function gatherFlink(
  flink: FlinkPort,
  table: TableRef,
  catalog: TableEvidence | undefined,
  configuredJob: string | undefined,
): Promise<FlinkEvidence> {
  const jobs = await flink.listJobs();
  const jobId = configuredJob ?? pickFlinkWriter(recentFlinkWriters(catalog?.snapshots ?? []), jobs);
  if (!jobId) return { jobs };
  try {
    const writer = await flink.getJobEvidence(jobId, table);
    return { jobs, writer, writerSource: configuredJob ? "configured" : "discovered" };
  } catch (error) {
    if (configuredJob && error instanceof CodedError && error.details?.status === 404) {
      throw new CodedError(
        ErrorCode.SourceHttpStatus,
        `Flink does not know the configured writer job ${jobId}`,
        {
          hint: `Check the flinkJob set for ${formatTableName(table)} in BOT_CONFIG; the job may have been redeployed under a new id.`,
          details: { ...error.details, jobId },
          cause: error,
        },
      );
    }
    throw error;
  }
}

async function gatherConnect(
  connect: ConnectPort,
  table: TableRef,
  configured: string | undefined,
): Promise<ConnectEvidence | undefined> {
  if (configured)
    return { ...(await connect.getConnectorEvidence(configured)), connectorSource: "configured" };
  const match = pickConnector(await connect.listConnectors(), table);
  if (!match) return undefined;
  return { ...(await connect.getConnectorEvidence(match.name)), connectorSource: match.source };
}

/**
 * Asks for each committer metric by name and keeps the series whose `table` label is ours;
 * the label holds the sink's table name with dots turned into underscores.
 */
async function gatherPrometheus(
  prometheus: PrometheusPort,
  table: TableRef,
  endMs: number,
): Promise<PrometheusEvidence> {
  const series: Record<string, MetricPoint[]> = {};
  await Promise.all(
    Object.entries(COMMITTER_SERIES).map(async ([name, metric]) => {
      const found = await prometheus.queryRange(metric, endMs - HISTORY_MS, endMs, HISTORY_STEP_SECONDS);
      const ours = ownSeries(found, table);
      if (ours.length > 0) series[name] = mergeMax(ours.map((s) => s.points));
    }),
  );
  return { series };
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

function addHistories(flink: FlinkEvidence | undefined, prometheus: PrometheusEvidence): void {
  const committer = flink?.writer?.committer;
  if (!committer) return;
  const durations = prometheus.series.lastCommitDurationMs;
  const elapsed = prometheus.series.elapsedSecondsSinceLastSuccessfulCommit;
  if (durations) committer.lastCommitDurationHistory = durations;
  if (elapsed) committer.elapsedSecondsHistory = elapsed;
}

function noEvidence(table: TableRef, sources: Record<SourceName, SourceStatus>): CodedError {
  const configured = Object.entries(sources).filter(([, s]) => s.status !== "not-configured");
  const reasons = configured.map(([name, s]) => `${name}: ${s.error ?? s.status}`);
  const message =
    configured.length === 0
      ? `No evidence source is configured, so nothing can be read about ${formatTableName(table)}`
      : `No evidence source answered for ${formatTableName(table)} (${reasons.join("; ")})`;
  return new CodedError(ErrorCode.NoEvidence, message, {
    hint:
      configured.length === 0
        ? "Set at least one of ICEBERG_CATALOG_URL, FLINK_REST_URL, CONNECT_REST_URL or PROMETHEUS_URL."
        : "Check that the URLs are right and the services are up, then try again.",
    retryable: configured.length > 0,
    details: { sources },
  });
}
