// Compact builders for Evidence in tests. Times are given as "ago" in ms relative to NOW, so a
// case reads like the incident it describes ("last commit 55 minutes ago").

import type {
  ConnectEvidence,
  Evidence,
  FlinkException,
  FlinkJobEvidence,
  Snapshot,
  SnapshotRef,
  SourceStatus,
  TableEvidence,
} from "../../src/core/evidence/model.js";
import type { SourceName } from "../../src/core/ids.js";

export const NOW = Date.UTC(2026, 10, 29, 9, 12, 0);
export const SEC = 1000;
export const MIN = 60 * SEC;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export const JOB = "4f2a9c1e0b7d4e3a8c6f5d2b1a0e9f87";
export const JOB2 = "9b1d7e2f4a6c8e0d1f3b5a7c9e2d4f60";
export const SPARK_APP = "application_1700000000000_0412";
export const CONNECTOR = "events-sink";

export const COMMIT_FAILED = "org.apache.iceberg.exceptions.CommitFailedException";
export const STATE_UNKNOWN = "org.apache.iceberg.exceptions.CommitStateUnknownException";
export const VALIDATION = "org.apache.iceberg.exceptions.ValidationException";
export const BASE_LOCATION_MESSAGE =
  "Cannot commit: Base metadata location 's3://lake/warehouse/db/events/metadata/00412-6b1c.metadata.json' is not same as the current table metadata location 's3://lake/warehouse/db/events/metadata/00413-0d9e.metadata.json' for db.events";
export const UNKNOWN_MESSAGE =
  "Service failed: 502: Invalid response from the upstream server\nCannot determine whether the commit was successful or not, the underlying data files may or may not be needed.";
export const VALIDATION_MESSAGE =
  'Found conflicting files that can contain records matching ref(name="event_date") == "2026-11-29": [s3://lake/warehouse/db/events/data/event_date=2026-11-29/00003-17-a1.parquet]';
export const CONNECT_TERMINATED_TRACE =
  "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.\n\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:632)\nCaused by: org.apache.iceberg.connect.channel.NotRunningException: Coordinator unexpectedly terminated on committer 7c1e2a4b\n\tat org.apache.iceberg.connect.channel.CommitterImpl.save(CommitterImpl.java:199)";

type Who = { flink: string } | { spark: string } | { connect: string; task?: number } | { anonymous: true };

export interface SnapOptions {
  op?: string;
  by?: Who;
  files?: number;
  bytes?: number;
  schemaId?: number;
  summary?: Record<string, string>;
}

let sequence = 0;

function summaryFor(who: Who, at: number): Record<string, string> {
  if ("flink" in who)
    return {
      "flink.job-id": who.flink,
      "flink.max-committed-checkpoint-id": String(Math.floor(at / MIN) % 100_000),
    };
  if ("spark" in who) return { "spark.app.id": who.spark, "engine-name": "spark" };
  if ("connect" in who)
    return {
      "kafka.connect.task-id": `${who.connect}-${who.task ?? 0}`,
      "kafka.connect.commit-id": `c-${at}`,
    };
  return {};
}

/** One snapshot `ago` ms before NOW. */
export function snap(ago: number, options: SnapOptions = {}): Snapshot {
  const at = NOW - ago;
  const files = options.files ?? 8;
  sequence++;
  return {
    snapshotId: String(7_000_000_000_000_000_000n + BigInt(sequence)),
    timestampMs: at,
    operation: options.op ?? "append",
    summary: {
      operation: options.op ?? "append",
      "added-data-files": String(files),
      "added-files-size": String(options.bytes ?? files * 48 * 1024 * 1024),
      ...summaryFor(options.by ?? { flink: JOB }, at),
      ...options.summary,
    },
    ...(options.schemaId !== undefined ? { schemaId: options.schemaId } : {}),
  };
}

/** Snapshots every `every` ms from `fromAgo` to `toAgo` (both inclusive). */
export function series(fromAgo: number, toAgo: number, every: number, options: SnapOptions = {}): Snapshot[] {
  const out: Snapshot[] = [];
  for (let ago = fromAgo; ago >= toAgo; ago -= every) out.push(snap(ago, options));
  return out;
}

export interface TableOptions {
  snapshots?: Snapshot[];
  properties?: Record<string, string>;
  lastUpdatedAgo?: number;
  partitionFields?: string[];
  sortOrderFieldCount?: number;
  refs?: Record<string, SnapshotRef>;
  currentSchemaId?: number;
  formatVersion?: number;
}

export function table(options: TableOptions = {}): TableEvidence {
  const snapshots = [...(options.snapshots ?? [])].sort((a, b) => a.timestampMs - b.timestampMs);
  const newest = snapshots[snapshots.length - 1];
  const partitionFields = options.partitionFields ?? ["event_date"];
  return {
    ref: { namespace: ["db"], name: "events" },
    uuid: "8f4c2a8e-3b1d-4e6f-9a0b-1c2d3e4f5a6b",
    formatVersion: options.formatVersion ?? 2,
    location: "s3://lake/warehouse/db/events",
    lastUpdatedMs:
      options.lastUpdatedAgo !== undefined
        ? NOW - options.lastUpdatedAgo
        : (newest?.timestampMs ?? NOW - DAY),
    ...(newest ? { currentSnapshotId: newest.snapshotId } : {}),
    snapshots,
    snapshotLog: snapshots.map((s) => ({ snapshotId: s.snapshotId, timestampMs: s.timestampMs })),
    metadataLog: [],
    refs: options.refs ?? (newest ? { main: { snapshotId: newest.snapshotId, type: "branch" } } : {}),
    properties: options.properties ?? {},
    currentSchemaId: options.currentSchemaId ?? 0,
    schemas: [{ schemaId: 0, fieldCount: 6 }],
    partitionFieldCount: partitionFields.length,
    partitionFields,
    sortOrderFieldCount: options.sortOrderFieldCount ?? 0,
  };
}

export interface JobOptions {
  jobId?: string;
  state?: string;
  intervalMs?: number;
  startedAgo?: number;
  latestCompletedAgo?: number;
  latestFailedAgo?: number;
  failedMessage?: string;
  exceptions?: Array<{ ago: number; name: string; message: string }>;
  elapsedSeconds?: number;
  durations?: number[];
  backpressure?: "ok" | "high";
}

export function exception(ago: number, name: string, message: string): FlinkException {
  const firstLine = message.split("\n")[0] ?? message;
  return {
    timestampMs: NOW - ago,
    exceptionName: name,
    message: firstLine,
    stacktrace: `${name}: ${message}\n\tat org.apache.iceberg.flink.sink.IcebergFilesCommitter.notifyCheckpointComplete(IcebergFilesCommitter.java:242)`,
    taskName: "IcebergFilesCommitter -> Sink: IcebergSink iceberg.db.events (1/1)",
  };
}

export function flinkJob(options: JobOptions = {}): FlinkJobEvidence {
  const jobId = options.jobId ?? JOB;
  const interval = options.intervalMs ?? 5 * MIN;
  const completedAgo = options.latestCompletedAgo ?? MIN;
  return {
    job: {
      jobId,
      name: "events-to-iceberg",
      state: options.state ?? "RUNNING",
      startTimeMs: NOW - (options.startedAgo ?? 3 * DAY),
    },
    vertices: [],
    checkpoints: {
      counts: {
        restored: 0,
        total: 520,
        inProgress: 0,
        completed: 500,
        failed: options.latestFailedAgo !== undefined ? 20 : 0,
      },
      latestCompleted: {
        id: 500,
        status: "COMPLETED",
        triggerTimestampMs: NOW - completedAgo - 2 * SEC,
        latestAckTimestampMs: NOW - completedAgo,
      },
      ...(options.latestFailedAgo !== undefined
        ? {
            latestFailed: {
              id: 520,
              status: "FAILED",
              triggerTimestampMs: NOW - options.latestFailedAgo,
              failureMessage: options.failedMessage ?? "Checkpoint expired before completing.",
            },
          }
        : {}),
      history: [],
    },
    checkpointConfig: { intervalMs: interval, timeoutMs: 10 * MIN },
    exceptions: (options.exceptions ?? []).map((e) => exception(e.ago, e.name, e.message)),
    committer: {
      vertexId: "90bea66de1c231edf33913ecd54406c1",
      operatorName: "IcebergFilesCommitter",
      metricTable: "iceberg_db_events",
      ...(options.elapsedSeconds !== undefined
        ? { elapsedSecondsSinceLastSuccessfulCommit: options.elapsedSeconds }
        : {}),
      ...(options.durations
        ? {
            lastCommitDurationHistory: options.durations.map((value, i) => ({
              atMs: NOW - (options.durations!.length - i) * interval,
              value,
            })),
          }
        : {}),
    },
    backpressure:
      options.backpressure === "high"
        ? [
            {
              vertexId: "0a448493b4782967b150582570326227",
              vertexName: "Map -> Filter",
              level: "high",
              maxRatio: 0.93,
            },
          ]
        : [],
  };
}

export interface ConnectOptions {
  name?: string;
  state?: string;
  taskState?: string;
  trace?: string;
  config?: Record<string, string>;
  sinkVersion?: string;
}

export function connect(options: ConnectOptions = {}): ConnectEvidence {
  const name = options.name ?? CONNECTOR;
  return {
    connector: {
      name,
      type: "sink",
      state: options.state ?? "RUNNING",
      workerId: "10.0.4.21:8083",
      tasks: [
        {
          id: 0,
          state: options.taskState ?? "RUNNING",
          workerId: "10.0.4.21:8083",
          ...(options.trace ? { trace: options.trace } : {}),
        },
      ],
    },
    config: {
      "connector.class": "org.apache.iceberg.connect.IcebergSinkConnector",
      "iceberg.tables": "db.events",
      ...options.config,
    },
    sinkVersion: options.sinkVersion ?? "1.11.0",
  };
}

export interface EvidenceOptions {
  table?: TableEvidence;
  flink?: FlinkJobEvidence;
  connect?: ConnectEvidence;
  prometheus?: Record<string, Array<{ atMs: number; value: number }>>;
  unavailable?: SourceName[];
}

export function evidence(options: EvidenceOptions): Evidence {
  const down = new Set(options.unavailable ?? []);
  const status = (name: SourceName, present: boolean): SourceStatus => {
    if (down.has(name))
      return { status: "unavailable", error: `${name} timed out after 5 s`, errorCode: "source_timeout" };
    return present ? { status: "ok", latencyMs: 12 } : { status: "not-configured" };
  };
  return {
    table: { namespace: ["db"], name: "events" },
    collectedAtMs: NOW,
    sources: {
      catalog: status("catalog", options.table !== undefined),
      flink: status("flink", options.flink !== undefined),
      connect: status("connect", options.connect !== undefined),
      prometheus: status("prometheus", options.prometheus !== undefined),
    },
    ...(options.table && !down.has("catalog") ? { catalog: options.table } : {}),
    ...(options.flink && !down.has("flink")
      ? { flink: { jobs: [options.flink.job], writer: options.flink, writerSource: "configured" as const } }
      : {}),
    ...(options.connect && !down.has("connect") ? { connect: options.connect } : {}),
    ...(options.prometheus ? { prometheus: { series: options.prometheus } } : {}),
  };
}

/** A Flink writer committing every 5 minutes for 6 hours, last commit 2 minutes ago. */
function healthyFlink(): Evidence {
  return evidence({
    table: table({ snapshots: series(6 * HOUR + 2 * MIN, 2 * MIN, 5 * MIN) }),
    flink: flinkJob(),
  });
}

/** A Connect sink committing every 5 minutes, last commit 3 minutes ago. */
function healthyConnect(): Evidence {
  return evidence({
    table: table({ snapshots: series(6 * HOUR + 3 * MIN, 3 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }) }),
    connect: connect(),
  });
}

/** A batch table: one Spark append a day, no streaming writer. */
function quietTable(): Evidence {
  return evidence({
    table: table({ snapshots: series(6 * DAY + 2 * HOUR, 2 * HOUR, DAY, { by: { spark: SPARK_APP } }) }),
  });
}

export const HEALTHY_BASELINES: ReadonlyArray<[string, () => Evidence]> = [
  ["healthy Flink writer", healthyFlink],
  ["healthy Connect writer", healthyConnect],
  ["quiet batch table", quietTable],
];
