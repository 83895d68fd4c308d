// The normalised evidence model. Adapters translate raw REST shapes into these types at the edge;
// the diagnosis and audit rules read nothing else. Times are epoch milliseconds.
// Snapshot ids are strings: Iceberg ids are 64-bit longs and lose precision as JS numbers.

import type { SourceName } from "../ids.js";

export interface TableRef {
  /** Namespace levels, e.g. ["db"] or ["a", "b"]. */
  namespace: string[];
  name: string;
}

type SourceState = "ok" | "unavailable" | "not-configured";

/**
 * One named source of a kind (a Flink cluster, a Connect cluster) that did not answer while the
 * others did: what it would have listed is missing, so a writer it runs may be missing too.
 */
export interface SourceGap {
  /** The source's name as BOT_CONFIG or discovery gives it. */
  source: string;
  /** Why it did not answer, in words a person can act on (never a secret). */
  error: string;
}

export interface SourceStatus {
  status: SourceState;
  latencyMs?: number;
  /** The HTTP status the source answered the bot's own read with, when that is why it is unavailable. */
  httpStatus?: number;
  /** Why the source did not answer, in words a person can act on (never a secret). */
  error?: string;
  errorCode?: string;
  /** Answered, but only in part: these named sources of the kind did not. */
  gaps?: SourceGap[];
}

export interface Snapshot {
  snapshotId: string;
  parentSnapshotId?: string;
  sequenceNumber?: number;
  timestampMs: number;
  /** append | replace | overwrite | delete (the spec's values); other strings are kept as read. */
  operation: string;
  summary: Record<string, string>;
  schemaId?: number;
}

export interface SnapshotLogEntry {
  snapshotId: string;
  timestampMs: number;
}

export interface MetadataLogEntry {
  metadataFile: string;
  timestampMs: number;
}

export interface SnapshotRef {
  snapshotId: string;
  type: "branch" | "tag";
  maxRefAgeMs?: number;
  maxSnapshotAgeMs?: number;
  minSnapshotsToKeep?: number;
}

export interface SchemaInfo {
  schemaId: number;
  fieldCount: number;
}

export interface TableEvidence {
  ref: TableRef;
  uuid: string;
  formatVersion: number;
  location: string;
  metadataLocation?: string;
  lastUpdatedMs: number;
  currentSnapshotId?: string;
  /** Sorted by timestampMs ascending. */
  snapshots: Snapshot[];
  snapshotLog: SnapshotLogEntry[];
  metadataLog: MetadataLogEntry[];
  refs: Record<string, SnapshotRef>;
  properties: Record<string, string>;
  currentSchemaId: number;
  schemas: SchemaInfo[];
  /** Number of partition fields in the default spec (0 = unpartitioned). */
  partitionFieldCount: number;
  /** Partition field names of the default spec, e.g. ["event_date"]. */
  partitionFields: string[];
  sortOrderFieldCount: number;
}

type FlinkJobState =
  | "INITIALIZING"
  | "CREATED"
  | "RUNNING"
  | "FAILING"
  | "FAILED"
  | "CANCELLING"
  | "CANCELED"
  | "FINISHED"
  | "RESTARTING"
  | "SUSPENDED"
  | "RECONCILING"
  | (string & {});

export interface FlinkJobSummary {
  jobId: string;
  name: string;
  state: FlinkJobState;
  startTimeMs: number;
  /** The Flink source (cluster) the job runs on, when the bot reads named sources. */
  source?: string;
}

export interface FlinkVertex {
  vertexId: string;
  name: string;
  parallelism: number;
  status: string;
}

export interface FlinkCheckpointSummary {
  id: number;
  status: string;
  triggerTimestampMs: number;
  latestAckTimestampMs?: number;
  endToEndDurationMs?: number;
  failureMessage?: string;
}

export interface FlinkCheckpoints {
  counts: { restored: number; total: number; inProgress: number; completed: number; failed: number };
  latestCompleted?: FlinkCheckpointSummary;
  latestFailed?: FlinkCheckpointSummary;
  /** The checkpoint the job last restored from, when it restored. */
  latestRestored?: { id: number; restoreTimestampMs?: number; isSavepoint?: boolean };
  /** Most recent first, as Flink returns it. */
  history: FlinkCheckpointSummary[];
}

interface FlinkCheckpointConfig {
  intervalMs: number;
  timeoutMs?: number;
  mode?: string;
}

/** One exception of a `Caused by:` chain: its class and the first line of its message. */
export interface ExceptionCause {
  /** Fully qualified class name, e.g. org.apache.iceberg.exceptions.NotAuthorizedException. */
  className: string;
  message: string;
}

export interface FlinkException {
  timestampMs: number;
  /** Fully qualified class name, e.g. org.apache.iceberg.exceptions.CommitFailedException. */
  exceptionName: string;
  /** First line of the message (after the class name), trimmed. */
  message: string;
  stacktrace: string;
  taskName?: string;
  /** The `Caused by:` chain read from the stack trace, outermost first; the last is the root. */
  causes?: ExceptionCause[];
}

export interface MetricPoint {
  atMs: number;
  value: number;
}

export interface CommitterMetrics {
  vertexId: string;
  /** Operator segment as Flink reports it in the metric id (already filtered). */
  operatorName: string;
  /** Iceberg table segment as it appears in the metric id, e.g. iceberg_db_events. */
  metricTable: string;
  elapsedSecondsSinceLastSuccessfulCommit?: number;
  lastCommitDurationMs?: number;
  lastCheckpointDurationMs?: number;
  committedDataFilesCount?: number;
  committedDataFilesByteCount?: number;
  committedDeleteFilesCount?: number;
  /** Samples across time when Prometheus or repeated polls provide them. */
  lastCommitDurationHistory?: MetricPoint[];
  elapsedSecondsHistory?: MetricPoint[];
}

export interface FlinkBackpressure {
  vertexId: string;
  vertexName: string;
  level: "ok" | "low" | "high" | (string & {});
  maxRatio: number;
}

export interface FlinkJobEvidence {
  job: FlinkJobSummary;
  vertices: FlinkVertex[];
  checkpoints?: FlinkCheckpoints;
  checkpointConfig?: FlinkCheckpointConfig;
  /** Newest first. */
  exceptions: FlinkException[];
  committer?: CommitterMetrics;
  backpressure: FlinkBackpressure[];
  /** Records per second the job's sources emit now (sum over source subtasks); 0 = idle input. */
  sourceRecordsPerSecond?: number;
}

export interface FlinkEvidence {
  jobs: FlinkJobSummary[];
  /** The writer job being diagnosed, when one was configured or discovered. */
  writer?: FlinkJobEvidence;
  /** How the writer was found. */
  writerSource?: "configured" | "discovered";
  /**
   * Every candidate writer job read (the writer first), when there is more than one: jobs named
   * by the table's snapshots and live or recently failed jobs whose sink names the table.
   */
  writers?: FlinkJobEvidence[];
}

type ConnectState = "UNASSIGNED" | "RUNNING" | "PAUSED" | "STOPPED" | "FAILED" | "RESTARTING" | (string & {});

/** Where a connector or one of its tasks runs, and how it is doing. */
export interface ConnectWorkStatus {
  state: ConnectState;
  workerId: string;
  trace?: string;
  /** The trace's `Caused by:` chain, outermost first; the last is the root. */
  causes?: ExceptionCause[];
}

export interface ConnectorStatus extends ConnectWorkStatus {
  name: string;
  type: string;
  tasks: (ConnectWorkStatus & { id: number })[];
}

export interface ConnectEvidence {
  connector: ConnectorStatus;
  config: Record<string, string>;
  /** Version of the Iceberg sink plugin from /connector-plugins, when known (e.g. "1.11.0"). */
  sinkVersion?: string;
  /** candidate: a dynamic-routing connector that may write the table (routing is per record). */
  connectorSource?: "configured" | "discovered" | "candidate";
  /** The other connectors that may write the table, read at the same time. */
  others?: ConnectEvidence[];
  /** The Kafka Connect cluster the connector runs on, when the bot reads named clusters. */
  cluster?: string;
}

export interface PrometheusEvidence {
  /** Named series read by range queries, e.g. lastCommitDurationMs over the last hours. */
  series: Record<string, MetricPoint[]>;
}

export interface Evidence {
  table: TableRef;
  /** When the evidence was gathered; rules take `now` separately. */
  collectedAtMs: number;
  sources: Record<SourceName, SourceStatus>;
  /** The named catalog the table was read from, when the bot reads named catalogs. */
  catalogName?: string;
  /** The name's first part was read as that catalog though BOT_CONFIG also maps it as a namespace. */
  catalogPrefixChosen?: boolean;
  catalog?: TableEvidence;
  flink?: FlinkEvidence;
  connect?: ConnectEvidence;
  prometheus?: PrometheusEvidence;
}
