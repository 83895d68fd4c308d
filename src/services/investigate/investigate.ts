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
  SourceGap,
  SourceStatus,
  TableEvidence,
  TableRef,
} from "../../core/evidence/model.js";
import type { SourceName } from "../../core/ids.js";
import { unknownCatalogWords } from "../../core/sources/model.js";
import { formatTableName, parseTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { ConnectPort, EvidencePorts, FlinkPort, PrometheusPort } from "../ports.js";
import { withDeadline } from "./deadline.js";
import { loadResolvedTable, tableRefWithoutCatalog } from "./resolve.js";
import {
  candidateWriterJobs,
  jobWritesTable,
  matchingConnectors,
  namesTable,
  pickFlinkWriter,
  recentFlinkWriters,
} from "./writers.js";

export { resolveTable } from "./resolve.js";

export interface InvestigateRequest {
  table: string;
  flinkJob?: string;
  connector?: string;
  /** The named catalog to read the table from (a sweep walking it); else the one mapped to the table. */
  catalog?: string;
  /** Deadline for each source's whole answer (several requests); default 15 s. */
  timeoutMs?: number;
}

const DEFAULT_INVESTIGATE_TIMEOUT_MS = 15_000;
/**
 * The share of a source's deadline its listing may take when several sources of the kind are
 * read: one that has not listed by then is named as a gap, and the rest leaves time to read the
 * jobs or connectors the others listed, so a silent cluster costs no more than the deadline.
 */
const LISTING_SHARE = 0.6;

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
  // With several catalogs: the one named in front of the table, else the one BOT_CONFIG maps it
  // to (the default for the rest).
  const picked = request.catalog ? undefined : ports.catalogs?.pick(request.table);
  const namedCatalog = request.catalog ? ports.catalogs?.byName(request.catalog) : picked;
  const table = picked?.table ?? request.table;
  const guessedRef = plainTableRef(table);
  const catalogPort = namedCatalog?.port ?? ports.catalog;
  const catalogTask = catalogPort
    ? timed("catalog", timeoutMs, now, () => loadResolvedTable(catalogPort, table, now))
    : undefined;
  const resolved = (async () => {
    const outcome = await catalogTask;
    return { ref: outcome?.value?.ref ?? guessedRef ?? tableRefWithoutCatalog(table), outcome };
  })();
  const refNow = async () => (await resolved).ref;

  // Named sources of a kind that did not answer while others did (a Flink cluster of several).
  const flinkGaps: SourceGap[] = [];
  const listWithinMs = Math.round(timeoutMs * LISTING_SHARE);
  const connectGaps: SourceGap[] = [];
  const flinkPort = ports.flink;
  const connectPort = ports.connect;
  const prometheusPort = ports.prometheus;
  const flinkTask = flinkPort
    ? timed("flink", timeoutMs, now, () =>
        gatherFlink(flinkPort, guessedRef, resolved, request.flinkJob, flinkGaps, listWithinMs),
      )
    : undefined;
  const connectTask = connectPort
    ? timed("connect", timeoutMs, now, async () =>
        gatherConnect(connectPort, refNow, request.connector, connectGaps, listWithinMs),
      )
    : undefined;
  const prometheusTask = prometheusPort
    ? timed("prometheus", timeoutMs, now, async () =>
        gatherPrometheus(prometheusPort, await refNow(), now(), request.flinkJob),
      )
    : undefined;

  const { ref, outcome: catalogOutcome } = await resolved;
  let catalog: TableEvidence | undefined;
  if (catalogOutcome) {
    sources.catalog = catalogOutcome.status;
    catalog = catalogOutcome.value?.evidence;
    if (catalogOutcome.error && TABLE_ERRORS.has(catalogOutcome.error.code))
      throw withCatalogs(catalogOutcome.error, table, picked?.unknownPrefix, ports.catalogs);
  }
  const [flink, connect, prometheus] = await Promise.all([flinkTask, connectTask, prometheusTask]);
  if (flink) sources.flink = withGaps(flink.status, flinkGaps);
  if (connect) sources.connect = withGaps(connect.status, connectGaps);
  if (prometheus) sources.prometheus = prometheus.status;

  const evidence: Evidence = { table: ref, collectedAtMs: now(), sources };
  if (namedCatalog) evidence.catalogName = namedCatalog.name;
  if (picked?.ambiguous) evidence.catalogPrefixChosen = true;
  if (catalog) evidence.catalog = catalog;
  if (flink?.value) evidence.flink = flink.value;
  if (connect?.value) evidence.connect = connect.value;
  if (prometheus?.value) {
    evidence.prometheus = finishPrometheus(prometheus.value, evidence);
    addHistories(evidence.flink, evidence.prometheus);
  }

  if (!Object.values(sources).some((s) => s.status === "ok")) throw noEvidence(ref, sources);
  return evidence;
}

/**
 * A table not found under a first part that names no catalog (`iceberg.sales.orders` when the
 * catalogs are lake-eu and lake-us): the reply lists the catalogs the name could start with.
 */
function withCatalogs(
  error: CodedError,
  table: string,
  unknownPrefix: string | undefined,
  catalogs: EvidencePorts["catalogs"],
): CodedError {
  const names = (catalogs?.all ?? []).map((c) => c.name).sort();
  if (error.code !== ErrorCode.TableNotFound || !unknownPrefix || names.length < 2) return error;
  const rest = table.slice(unknownPrefix.length + 1);
  return new CodedError(error.code, `${error.message} ${unknownCatalogWords(unknownPrefix, names)}`, {
    hint: `Put one of them in front (for example ${names[0]}.${rest}), or leave the catalog out (${rest}).`,
    details: { ...error.details, unknownCatalog: unknownPrefix, catalogs: names },
  });
}

/** An answered kind keeps the names of its sources that did not answer; a failed kind says why itself. */
function withGaps(status: SourceStatus, gaps: readonly SourceGap[]): SourceStatus {
  return status.status === "ok" && gaps.length > 0 ? { ...status, gaps: [...gaps] } : status;
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
        ...(typeof error.details?.status === "number" ? { httpStatus: error.details.status } : {}),
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
  gaps: SourceGap[],
  listWithinMs: number,
): Promise<FlinkEvidence> {
  const listing = flink.listJobs(listWithinMs);
  // Reads under the name as typed start before the catalog answers and are kept when the catalog
  // resolves the same name; a job is read once per source whatever asks for it.
  const early = new Map<string, Promise<FlinkJobEvidence>>();
  const readEarly = (id: string, source: string | undefined) => {
    if (!guessedRef) return;
    const key = `${source ?? ""}/${id}`;
    if (early.has(key)) return;
    const read = flink.getJobEvidence(id, guessedRef, source);
    read.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    early.set(key, read);
  };
  // A configured job does not need the listing or the catalog.
  if (configuredJob) readEarly(configuredJob, undefined);
  const jobs = await listing;
  gaps.push(...(jobs.gaps ?? []));
  // With several Flink sources a job id may be listed by more than one (application clusters):
  // each listing is read on its own source.
  const sourcesOf = (id: string) => {
    const named = jobs.filter((j) => j.jobId === id && j.source !== undefined).map((j) => j.source);
    return named.length > 0 ? named : [undefined];
  };
  // Live and recently failed jobs are candidates whatever the snapshots say: they are read now,
  // alongside the catalog, so a slow catalog is not followed by the Flink reads it did not need.
  for (const id of candidateWriterJobs([], jobs, undefined))
    for (const source of sourcesOf(id)) readEarly(id, source);
  const { ref: table, outcome } = await resolved;
  const fromSnapshots = recentFlinkWriters(outcome?.value?.evidence.snapshots ?? []);
  const jobId = configuredJob ?? pickFlinkWriter(fromSnapshots, jobs);
  // The catalog may have resolved the name differently (a catalog-qualified form): read again then.
  const sameTable = guessedRef !== undefined && formatTableName(guessedRef) === formatTableName(table);
  const read = (id: string, source: string | undefined) =>
    (sameTable ? early.get(`${source ?? ""}/${id}`) : undefined) ?? flink.getJobEvidence(id, table, source);
  // Every other candidate writer is read at the same time, under the same deadline: jobs named in
  // the snapshots, and live or recently failed jobs whose committer or sink vertices name the table.
  const others = candidateWriterJobs(fromSnapshots, jobs, jobId);
  const [writerSource, ...otherSources] = jobId ? sourcesOf(jobId) : [];
  const probes = [
    ...others.flatMap((id) => sourcesOf(id).map((source) => ({ id, source }))),
    ...otherSources.map((source) => ({ id: jobId as string, source })),
  ].map(({ id, source }) =>
    read(id, source).then(
      (evidence) => evidence,
      () => undefined, // a job that vanished or cannot be read is no candidate
    ),
  );
  let writer: FlinkJobEvidence | undefined;
  if (jobId) {
    try {
      writer = await read(jobId, configuredJob && sameTable ? undefined : writerSource);
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
  gaps: SourceGap[],
  listWithinMs: number,
): Promise<ConnectEvidence | undefined> {
  if (configured)
    return { ...(await connect.getConnectorEvidence(configured)), connectorSource: "configured" };
  // Every Connect cluster's connectors are listed at once (the cluster is on each).
  const [connectors, table] = await Promise.all([connect.listConnectors(listWithinMs), refNow()]);
  gaps.push(...(connectors.gaps ?? []));
  // Every connector that may write the table is read at once; the first is the writer unless the
  // diagnosis finds another one failing.
  const matches = matchingConnectors(connectors, table);
  if (matches.length === 0) return undefined;
  const read = await Promise.all(
    matches.map((m, i) =>
      connect.getConnectorEvidence(m.name, m.cluster).then(
        (evidence): ConnectEvidence => ({ ...evidence, connectorSource: m.source }),
        (error) => {
          if (i === 0) throw error; // the primary's failure is the source's failure
          return undefined;
        },
      ),
    ),
  );
  const found = read.filter((c): c is ConnectEvidence => c !== undefined);
  const [primary] = found;
  if (!primary) return undefined;
  return found.length > 1 ? { ...primary, others: found.slice(1) } : primary;
}

/**
 * Asks for each committer metric by name and keeps the series whose `table` label is ours;
 * the label holds the sink's table name with dots turned into underscores.
 */
async function gatherPrometheus(
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
function finishPrometheus(gathered: GatheredPrometheus, evidence: Evidence): PrometheusEvidence {
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
