// Gathering evidence about one table: the catalog first (it names the writers), then Flink,
// Kafka Connect and Prometheus in parallel, each under its own deadline. A source that fails is
// recorded as unavailable with its reason; only when no source answers at all is it an error.

import type {
  ConnectEvidence,
  Evidence,
  FlinkEvidence,
  FlinkJobEvidence,
  SourceGap,
  SourceStatus,
  TableEvidence,
  TableRef,
} from "../../core/evidence/model.js";
import { SOURCE_NAMES, type SourceName } from "../../core/ids.js";
import { unknownCatalogWords } from "../../core/sources/model.js";
import { formatTableName, parseTableName } from "../../core/table-name.js";
import { asCodedError, CodedError, ErrorCode } from "../../errors.js";
import type { ConnectPort, EvidencePorts, FlinkPort } from "../ports.js";
import { withDeadline } from "./deadline.js";
import { addHistories, finishPrometheus, gatherPrometheus } from "./prometheus.js";
import { loadResolvedTable, tableRefWithoutCatalog } from "./resolve.js";
import {
  candidateWriterJobs,
  jobWritesTable,
  matchingConnectors,
  pickFlinkWriter,
  recentFlinkWriters,
} from "./writers.js";

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
  const sources = Object.fromEntries(
    SOURCE_NAMES.map((name) => [name, { status: "not-configured" }]),
  ) as Record<SourceName, SourceStatus>;

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
  const connectGaps: SourceGap[] = [];
  const listWithinMs = Math.round(timeoutMs * LISTING_SHARE);
  const { flink: flinkPort, connect: connectPort, prometheus: prometheusPort } = ports;
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
  const writer = jobId
    ? await read(jobId, configuredJob && sameTable ? undefined : writerSource).catch((error: unknown) => {
        throw configuredJob ? unknownConfiguredJob(error, jobId, table) : error;
      })
    : undefined;
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

/** A configured writer job Flink answers 404 for: the configuration names a job that is gone. */
function unknownConfiguredJob(error: unknown, jobId: string, table: TableRef): unknown {
  if (!(error instanceof CodedError) || error.details?.status !== 404) return error;
  return new CodedError(
    ErrorCode.SourceHttpStatus,
    `Flink does not know the configured writer job ${jobId}`,
    {
      hint: `Check the flinkJob set for ${formatTableName(table)} in BOT_CONFIG; the job may have been redeployed under a new id.`,
      details: { ...error.details, jobId },
      cause: error,
    },
  );
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
