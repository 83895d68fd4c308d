// Scenario files describe a lakehouse the simulator serves: a table's commit history, the Flink
// jobs and Kafka Connect connectors that write it, and how the writer behaves when a change is
// made. Times are relative to the simulator's clock ("-55m" = 55 minutes before now) so that a
// scenario stays realistic whenever it runs and time can be advanced.

import { z } from "zod";

/** A relative time such as "-55m", "-6h", "-3d", "-90s", "0" (now). */
const RelativeTimeSchema = z
  .string()
  .regex(/^(0|-\d+(\.\d+)?(ms|s|m|h|d))$/, 'a relative time like "-55m", "-6h" or "0"');

/** A positive duration such as "5m", "30s", "1h". */
const DurationSchema = z.string().regex(/^\d+(\.\d+)?(ms|s|m|h|d)$/, 'a duration like "5m" or "30s"');

/** Who committed a snapshot; it decides the summary keys the simulator writes. */
const CommitterSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("flink"),
    jobId: z.string().regex(/^[0-9a-f]{32}$/),
    checkpointStart: z.number().int().default(1),
    /**
     * The committer operator's uid: jobs sharing it are one writer across a job-id change (a
     * restore from a savepoint keeps flink.operator-id). Default: one per job id.
     */
    operatorUid: z.string().optional(),
    /** Commits per checkpoint id: more than 1 models several committers inside one job. */
    commitsPerCheckpoint: z.number().int().positive().default(1),
  }),
  z.object({
    kind: z.literal("spark"),
    appId: z.string(),
    /** Structured streaming: the query id Iceberg's streaming write records (with the epoch id). */
    streamingQueryId: z.string().optional(),
  }),
  z.object({
    kind: z.literal("connect"),
    connector: z.string(),
    taskId: z.number().int().default(0),
    /**
     * Which sink writes the keys (core/attribution/keys.ts has the sources): "iceberg" = Apache
     * Iceberg's with the task id (Nov 2025 on); "iceberg-1.7" = the same without it; "tabular" =
     * tabular-io / databricks (commit-id, vtts, cg-control group); "tabular-0.4" = kafka.connect.commitId;
     * "tabular-0.3" = offsets without a group.
     */
    sink: z.enum(["iceberg", "iceberg-1.7", "tabular", "tabular-0.4", "tabular-0.3"]).default("iceberg"),
    /** The consumer group the offsets key names; default: the sink's default for the connector. */
    group: z.string().optional(),
  }),
  /** Trino's Iceberg connector: every commit carries its query id. */
  z.object({ kind: z.literal("trino") }),
  /** Only engine-name / engine-version (a custom committer on a recent Iceberg), no writer id. */
  z.object({ kind: z.literal("engine"), name: z.string(), version: z.string().optional() }),
  /** No writer identity in the summary at all. */
  z.object({ kind: z.literal("anonymous") }),
]);

const SnapshotShape = {
  operation: z.enum(["append", "replace", "overwrite", "delete"]),
  committer: CommitterSchema,
  addedDataFiles: z.number().int().nonnegative().default(8),
  addedFilesSizeBytes: z.number().int().nonnegative().optional(),
  addedRecords: z.number().int().nonnegative().default(20_000),
  deletedDataFiles: z.number().int().nonnegative().default(0),
  addedDeleteFiles: z.number().int().nonnegative().default(0),
  /** Schema id the snapshot was written with (schema churn changes it). */
  schemaId: z.number().int().optional(),
  /** Branch the snapshot is committed to; default main. */
  branch: z.string().default("main"),
  /** Extra summary keys, kept verbatim. */
  summary: z.record(z.string(), z.string()).default({}),
};

/** One snapshot at a relative time. */
const SingleSnapshotSchema = z.object({ at: RelativeTimeSchema, ...SnapshotShape });

/** A regular series of snapshots: from, to (inclusive), every. */
const SnapshotSeriesSchema = z.object({
  series: z.object({ from: RelativeTimeSchema, to: RelativeTimeSchema, every: DurationSchema }),
  ...SnapshotShape,
});

const SnapshotEntrySchema = z.union([SingleSnapshotSchema, SnapshotSeriesSchema]);

const SchemaFieldSchema = z.object({
  name: z.string(),
  type: z.string().default("string"),
  required: z.boolean().default(false),
});

export const TableScenarioSchema = z.object({
  /** namespace.table, nested namespaces allowed (a.b.table). */
  name: z.string().regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)+$/),
  /** The named catalog serving the table (its own server); absent = the default catalog. */
  catalog: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  uuid: z.uuid().optional(),
  formatVersion: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(2),
  location: z.string().optional(),
  properties: z.record(z.string(), z.string()).default({}),
  /** Schemas by id; snapshots refer to them with schemaId. Default: one schema with id 0. */
  schemas: z
    .array(z.object({ id: z.number().int().nonnegative(), fields: z.array(SchemaFieldSchema).min(1) }))
    .optional(),
  currentSchemaId: z.number().int().optional(),
  partitionBy: z
    .array(z.object({ source: z.string(), transform: z.string().default("identity") }))
    .default([]),
  sortBy: z.array(z.string()).default([]),
  snapshots: z.array(SnapshotEntrySchema).default([]),
  /** When the table was created; default: ten minutes before its first snapshot, or now without one. */
  createdAt: RelativeTimeSchema.optional(),
  /** Moves last-updated-ms past the newest snapshot (a property, schema or spec change). */
  lastUpdated: RelativeTimeSchema.optional(),
  /** Extra refs besides main, e.g. a writer's branch or a WAP audit branch. */
  branches: z
    .array(
      z.object({
        name: z.string(),
        type: z.enum(["branch", "tag"]).default("branch"),
        maxSnapshotAgeMs: z.number().int().optional(),
        minSnapshotsToKeep: z.number().int().optional(),
        maxRefAgeMs: z.number().int().optional(),
      }),
    )
    .default([]),
  /** Metadata-only commits (schema, spec or property changes) at these times: metadata-log entries, no snapshot. */
  metadataChanges: z.array(RelativeTimeSchema).default([]),
  /** Snapshots older than this were expired: gone from the metadata, their ids still named as parents. */
  expiredBefore: RelativeTimeSchema.optional(),
  /** How many metadata-log entries to keep (defaults to one per snapshot, capped by the table's previous-versions-max). */
  metadataLogEntries: z.number().int().nonnegative().optional(),
});

const FlinkExceptionScenarioSchema = z.object({
  at: RelativeTimeSchema,
  /** Fully qualified exception class. */
  exception: z.string(),
  /** The message as the real class formats it (see the upstream exception templates). */
  message: z.string(),
  taskName: z.string().optional(),
  /** Extra stack frames after the first line; realistic defaults are generated when absent. */
  frames: z.array(z.string()).optional(),
  /** The `Caused by:` chain under it, outermost first (the last is the root). */
  causedBy: z.array(z.object({ exception: z.string(), message: z.string() })).default([]),
});

const FlinkCheckpointScenarioSchema = z.object({
  intervalMs: z.number().int().positive().default(300_000),
  timeoutMs: z.number().int().positive().default(600_000),
  completed: z.number().int().nonnegative().default(500),
  failed: z.number().int().nonnegative().default(0),
  inProgress: z.number().int().nonnegative().default(0),
  /** When the latest checkpoint completed; absent = "one interval ago or less". */
  latestCompletedAt: RelativeTimeSchema.optional(),
  latestFailed: z.object({ at: RelativeTimeSchema, message: z.string() }).optional(),
  endToEndDurationMs: z.number().int().nonnegative().default(1_800),
  /** Whether recent history entries are failures (true = checkpoints are failing now). */
  failing: z.boolean().default(false),
  /** The checkpoint the job restored from after its last failure; default: its last committed one. */
  restoredCheckpointId: z.number().int().positive().optional(),
});

const CommitterScenarioSchema = z.object({
  /** v1 = FlinkSink's IcebergFilesCommitter operator; v2 = IcebergSink's "<name>: Committer". */
  sink: z.enum(["flink-sink-v1", "iceberg-sink-v2"]).default("flink-sink-v1"),
  uidPrefix: z.string().optional(),
  /** Table name as the sink reports it (table.name()), e.g. iceberg.db.events. */
  table: z.string(),
  /** Samples of lastCommitDurationMs, oldest first; the last is the current value. */
  lastCommitDurationMs: z.array(z.number().nonnegative()).default([850]),
  committedDataFilesCount: z.number().int().nonnegative().default(8),
  committedDataFilesByteCount: z.number().int().nonnegative().optional(),
  /** Absent: derived from the writer's newest snapshot on the table (seconds since it). */
  elapsedSecondsSinceLastSuccessfulCommit: z.number().nonnegative().optional(),
});

const FlinkJobScenarioSchema = z.object({
  id: z.string().regex(/^[0-9a-f]{32}$/),
  name: z.string(),
  /** The named Flink cluster running the job (its own JobManager REST server); absent = the default. */
  cluster: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  state: z.string().default("RUNNING"),
  startedAt: RelativeTimeSchema.default("-3d"),
  parallelism: z.number().int().positive().default(4),
  checkpoints: FlinkCheckpointScenarioSchema.default(FlinkCheckpointScenarioSchema.parse({})),
  exceptions: z.array(FlinkExceptionScenarioSchema).default([]),
  committer: CommitterScenarioSchema.optional(),
  backpressure: z.enum(["ok", "low", "high"]).default("ok"),
  /** The sink vertex's name when the job has no Iceberg committer (a custom sink); default "Sink: Unnamed". */
  sinkVertexName: z.string().optional(),
  /** Records per second each subtask reads and emits; 0 = the input is idle. */
  recordsPerSecond: z.number().nonnegative().default(65),
});

const ConnectTaskScenarioSchema = z.object({
  id: z.number().int().nonnegative(),
  state: z.string().default("RUNNING"),
  trace: z.string().optional(),
  workerId: z.string().default("10.0.4.21:8083"),
});

const ConnectorScenarioSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/),
  /** The named Kafka Connect cluster running it (its own REST server); absent = the default. */
  cluster: z
    .string()
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  /** Flat connector config as GET /connectors/{name}/config returns it (name is added). */
  config: z.record(z.string(), z.string()),
  state: z.string().default("RUNNING"),
  trace: z.string().optional(),
  workerId: z.string().default("10.0.4.21:8083"),
  tasks: z
    .array(ConnectTaskScenarioSchema)
    .default([{ id: 0, state: "RUNNING", workerId: "10.0.4.21:8083" }]),
});

const ConnectScenarioSchema = z.object({
  /** Kafka Connect worker version from GET /. */
  version: z.string().default("3.9.1"),
  /** Iceberg sink plugin version from /connector-plugins: 1.11.0 logs failures and stays RUNNING; main fails the task. */
  sinkVersion: z.string().default("1.11.0"),
  connectors: z.array(ConnectorScenarioSchema).default([]),
});

/** What makes the stalled writer commit again once a person (or the bot) changes something. */
const RecoveryTriggerSchema = z.discriminatedUnion("when", [
  z.object({
    when: z.literal("table-property-at-least"),
    table: z.string(),
    key: z.string(),
    value: z.number(),
  }),
  z.object({
    when: z.literal("table-property-equals"),
    table: z.string(),
    key: z.string(),
    value: z.string(),
  }),
  z.object({ when: z.literal("connector-restarted"), connector: z.string() }),
  z.object({
    when: z.literal("connector-config-at-least"),
    connector: z.string(),
    key: z.string(),
    value: z.number(),
  }),
  z.object({ when: z.literal("never") }),
  /** A healthy writer: it keeps committing every commitEvery as the clock moves. */
  z.object({ when: z.literal("always") }),
]);

const WriterBehaviourSchema = z.object({
  table: z.string(),
  committer: CommitterSchema,
  /** How often the writer commits once it is healthy. */
  commitEvery: DurationSchema.default("5m"),
  recoversWhen: RecoveryTriggerSchema.default({ when: "never" }),
});

const PrometheusSeriesSchema = z.object({
  /** PromQL the simulator answers (matched exactly after whitespace is folded), or a metric name. */
  query: z.string(),
  /** Values oldest first, one per step. */
  values: z.array(z.number()),
  step: DurationSchema.default("5m"),
  labels: z.record(z.string(), z.string()).default({}),
});

const ScenarioExpectationSchema = z.object({
  verdict: z.string().optional(),
  findings: z.array(z.string()).default([]),
  /** Findings that must not fire. */
  absent: z.array(z.string()).default([]),
  nextStep: z.string().nullable().optional(),
  audit: z.record(z.string(), z.enum(["pass", "warn", "fail"])).default({}),
  /** A sweep of the whole catalog ranks its tables in this order, worst first. */
  ranking: z.array(z.string()).optional(),
});

export const ScenarioSchema = z.object({
  name: z.string().regex(/^[a-z0-9-]+$/),
  description: z.string(),
  /** The public upstream reports the scenario is modelled on (GitHub issue or pull request URLs). */
  sources: z.array(z.url()).default([]),
  /** The table people ask about in this scenario. */
  table: z.string(),
  catalog: z
    .object({
      /** The catalog's /v1/config prefix override (e.g. "prod"); absent = no prefix. */
      prefix: z.string().optional(),
      warehouse: z.string().default("s3://lake/warehouse"),
      tables: z.array(TableScenarioSchema).default([]),
      /** Extra empty namespaces to list. */
      namespaces: z.array(z.string()).default([]),
      /** Page size of namespace and table listings when a client asks for pages (pageToken). */
      pageSize: z.number().int().positive().default(100),
    })
    .default({ warehouse: "s3://lake/warehouse", tables: [], namespaces: [], pageSize: 100 }),
  flink: z.object({ jobs: z.array(FlinkJobScenarioSchema).default([]) }).optional(),
  /** Faults in place from the start, e.g. the catalog answering 503 to everything. */
  faults: z
    .array(
      z.object({
        service: z.enum(["catalog", "flink", "connect", "prometheus"]),
        /** The named cluster or catalog it hits; default: every server of the service. */
        server: z.string().optional(),
        /** Exact pathname, or a regex source starting with ^. */
        path: z.string(),
        kind: z.enum(["latency", "status", "hang", "reset", "truncate", "non-json"]),
        status: z.number().int().optional(),
        ms: z.number().int().optional(),
      }),
    )
    .default([]),
  connect: ConnectScenarioSchema.optional(),
  prometheus: z.object({ series: z.array(PrometheusSeriesSchema).default([]) }).optional(),
  writers: z.array(WriterBehaviourSchema).default([]),
  expect: ScenarioExpectationSchema.default({ findings: [], absent: [], audit: {} }),
});

export type Committer = z.infer<typeof CommitterSchema>;
export type TableScenario = z.infer<typeof TableScenarioSchema>;
export type FlinkJobScenario = z.infer<typeof FlinkJobScenarioSchema>;
export type ConnectorScenario = z.infer<typeof ConnectorScenarioSchema>;
export type WriterBehaviour = z.infer<typeof WriterBehaviourSchema>;
export type RecoveryTrigger = z.infer<typeof RecoveryTriggerSchema>;
export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioInput = z.input<typeof ScenarioSchema>;
