// Gathering evidence about one table: the catalog first (it names the writers), then Flink,
// Kafka Connect and Prometheus in parallel, each under its own deadline. A source that fails is
// recorded as unavailable with its reason; only when no source answers at all is it an error.

import type {
  ConnectEvidence,
  Evidence,
  FlinkEvidence,
  FlinkJobEvidence,
  MetricPoint,
  PrometheusEvidence,
  SourceStatus,
  TableEvidence,
  TableRef,
} from "../core/evidence/model.js";
import type { SourceName } from "../core/ids.js";
import { formatTableName, parseTableName } from "../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import { withDeadline } from "./investigate-deadline.js";
import { loadResolvedTable, tableRefWithoutCatalog } from "./investigate-resolve.js";
import {
  candidateWriterJobs,
  jobWritesTable,
  namesTable,
  pickConnector,
  pickFlinkWriter,
  recentFlinkWriters,
} from "./investigate-writers.js";
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

  // Every source starts at once. Only what truly needs the catalog waits for it: the resolved
  // name (for the sanitised and catalog-qualified forms) and, when no Flink job is configured,
  // the job ids in the table's snapshots. The alert-to-diagnosis time is then close to the
  // slowest source's own reading time instead of the sum of all of them.
  const guessedRef = plainTableRef(request.table);
  const catalogPort = ports.catalog;
  const catalogTask = catalogPort
    ? timed("catalog", timeoutMs, now, () => loadResolvedTable(catalogPort, request.table))
    : undefined;
  const resolved = (async () => {
    const outcome = await catalogTask;
    return { ref: outcome?.value?.ref ?? guessedRef ?? tableRefWithoutCatalog(request.table), outcome };
  })();
  const refNow = async () => (await resolved).ref;

  const flinkPort = ports.flink;
  const connectPort = ports.connect;
  const prometheusPort = ports.prometheus;
  const flinkTask = flinkPort
    ? timed("flink", timeoutMs, now, () => gatherFlink(flinkPort, guessedRef, resolved, request.flinkJob))
    : undefined;
  const connectTask = connectPort
    ? timed("connect", timeoutMs, now, async () => gatherConnect(connectPort, refNow, request.connector))
    : undefined;
  const prometheusTask = prometheusPort
    ? timed("prometheus", timeoutMs, now, async () => gatherPrometheus(prometheusPort, await refNow(), now()))
    : undefined;

  const { ref, outcome: catalogOutcome } = await resolved;
  let catalog: TableEvidence | undefined;
  if (catalogOutcome) {
    sources.catalog = catalogOutcome.status;
    catalog = catalogOutcome.value?.evidence;
    if (catalogOutcome.error && TABLE_ERRORS.has(catalogOutcome.error.code)) throw catalogOutcome.error;
  }
  const [flink, connect, prometheus] = await Promise.all([flinkTask, connectTask, prometheusTask]);
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
  guessedRef: TableRef | undefined,
  resolved: Promise<{ ref: TableRef; outcome?: Timed<{ evidence: TableEvidence }> }>,
  configuredJob: string | undefined,
): Promise<FlinkEvidence> {
  const listing = flink.listJobs();
  // A configured job does not need the catalog: read it alongside, under the name as typed.
  const early = configuredJob && guessedRef ? flink.getJobEvidence(configuredJob, guessedRef) : undefined;
  early?.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  const jobs = await listing;
  const { ref: table, outcome } = await resolved;
  const fromSnapshots = recentFlinkWriters(outcome?.value?.evidence.snapshots ?? []);
  const jobId = configuredJob ?? pickFlinkWriter(fromSnapshots, jobs);
  // The catalog may have resolved the name differently (a catalog-qualified form): read again then.
  const sameTable = guessedRef !== undefined && formatTableName(guessedRef) === formatTableName(table);
  // Every other candidate writer is read at the same time, under the same deadline: jobs named in
  // the snapshots, and live or recently failed jobs whose committer or sink vertices name the table.
  const others = candidateWriterJobs(fromSnapshots, jobs, jobId);
  const probes = others.map((id) =>
    flink.getJobEvidence(id, table).then(
      (evidence) => evidence,
      () => undefined, // a job that vanished or cannot be read is no candidate
    ),
  );
  let writer: FlinkJobEvidence | undefined;
  if (jobId) {
    try {
      writer = await (early && sameTable ? early : flink.getJobEvidence(jobId, table));
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
  const snapshotIds = new Set(fromSnapshots);
  const found = (await Promise.all(probes)).filter(
    (job): job is FlinkJobEvidence =>
      job !== undefined && (snapshotIds.has(job.job.jobId) || jobWritesTable(job, table)),
  );
  const writers = [...(writer ? [writer] : []), ...found];
  if (writers.length === 0) return { jobs };
  const primary = writer ?? writers[0]!;
  return {
    jobs,
    writer: primary,
    writerSource: configuredJob ? "configured" : "discovered",
    ...(writers.length > 1 ? { writers } : {}),
  };
}

async function gatherConnect(
  connect: ConnectPort,
  refNow: () => Promise<TableRef>,
  configured: string | undefined,
): Promise<ConnectEvidence | undefined> {
  if (configured)
    return { ...(await connect.getConnectorEvidence(configured)), connectorSource: "configured" };
  const [connectors, table] = await Promise.all([connect.listConnectors(), refNow()]);
  const match = pickConnector(connectors, table);
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

/** The table as typed when it is a plain `namespace.table` (the usual case); else the catalog decides. */
function plainTableRef(input: string): TableRef | undefined {
  const trimmed = input.trim();
  if (!trimmed.includes(".")) return undefined;
  try {
    return parseTableName(trimmed);
  } catch {
    return undefined;
  }
}
