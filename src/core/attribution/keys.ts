// The summary keys each writer leaves on the snapshots it commits, per writer and version, read
// from the writers' own source. Every reader of "who wrote this snapshot" goes through this table
// (attribute.ts); no other module names these keys. docs/attribution.md lists the same table for
// people. Where a version could not be checked in its source, the entry says so.

/**
 * Apache Iceberg's Flink sink, both the FlinkSink (IcebergFilesCommitter) and the sink v2
 * IcebergSink (IcebergCommitter, keys in SinkUtil).
 * Source: apache/iceberg @ 7f879b11366e17a676a03f15247a821751415529,
 *   flink/v2.1/flink/src/main/java/org/apache/iceberg/flink/sink/SinkUtil.java,
 *   IcebergFilesCommitter.java and IcebergCommitter.java (operation.set of all three keys).
 * flink.job-id and the checkpoint id since the sink first shipped (f950a3e, 2020);
 * flink.operator-id since 8828ac1 (2023, "multiple flink sinks for the same table"): older sinks
 * write the first two only.
 */
export const FLINK_KEYS = {
  jobId: "flink.job-id",
  operatorId: "flink.operator-id",
  checkpointId: "flink.max-committed-checkpoint-id",
} as const;

/**
 * The Kafka Connect sink, in the generations that wrote different keys.
 *
 * Apache Iceberg (org.apache.iceberg.connect), apache/iceberg @ 7f879b1,
 *   kafka-connect/kafka-connect/src/main/java/org/apache/iceberg/connect/channel/Coordinator.java:
 *   kafka.connect.commit-id (a UUID), kafka.connect.valid-through-ts (an ISO-8601 offset date-time),
 *   kafka.connect.offsets.<control topic>.<connect group id> (JSON partition -> offset); the group
 *   defaults to "connect-<connector name>" (IcebergSinkConfig.connectGroupId, overridable with
 *   iceberg.connect.group-id). Since de9b8fd (#14493, Nov 2025) also kafka.connect.task-id =
 *   "<connector name>-<task number>"; the module's first version (d8e7642, #10351, Jul 2024)
 *   has no task id.
 *
 * tabular-io/iceberg-kafka-connect, later databricks/iceberg-kafka-connect (the same history),
 *   @ 066bb7993de1d2e8edfd6302d16cb50e52df5f19,
 *   kafka-connect/src/main/java/io/tabular/iceberg/connect/channel/Coordinator.java:
 *   kafka.connect.commit-id, kafka.connect.vtts (valid-through as epoch milliseconds),
 *   kafka.connect.offsets.<control topic>.<control group id>; the group defaults to
 *   "cg-control-<connector name>" (IcebergSinkConfig.controlGroupId, iceberg.control.group-id).
 *   Before 03dcf40 (#101, Oct 2023) the commit id key was kafka.connect.commitId; before 7bcd992
 *   (#30, Jun 2023, release 0.4.0) the offsets key was kafka.connect.control.offsets.<control topic>
 *   and named no group.
 */
export const CONNECT_KEYS = {
  commitId: "kafka.connect.commit-id",
  commitIdTabularEarly: "kafka.connect.commitId",
  taskId: "kafka.connect.task-id",
  validThrough: "kafka.connect.valid-through-ts",
  validThroughTabular: "kafka.connect.vtts",
  /** Followed by "<control topic>.<group id>". */
  offsetsPrefix: "kafka.connect.offsets.",
  /** Followed by "<control topic>" (tabular before 0.4.0). */
  offsetsPrefixTabularEarly: "kafka.connect.control.offsets.",
} as const;

/** How each generation names the consumer group when the connector does not set one. */
export const CONNECT_DEFAULT_GROUP_PREFIX = {
  iceberg: "connect-",
  tabular: "cg-control-",
} as const;

/** The connector settings that override the group and the control topic, per generation. */
export const CONNECT_CONFIG = {
  groupIceberg: "iceberg.connect.group-id",
  groupTabular: "iceberg.control.group-id",
  controlTopic: "iceberg.control.topic",
  defaultControlTopic: "control-iceberg",
  commitInterval: "iceberg.control.commit.interval-ms",
} as const;

/**
 * Spark, apache/iceberg @ 7f879b1, spark/v4.0/spark/src/main/java/org/apache/iceberg/spark/source/
 * SparkWrite.java (batch: spark.app.id; structured streaming: spark.sql.streaming.queryId and
 * spark.sql.streaming.epochId), SparkPositionDeltaWrite.java and SparkTable.java (spark.app.id).
 * spark.app.name is not written by Iceberg; a job may add it with snapshot-property.*.
 */
export const SPARK_KEYS = {
  appId: "spark.app.id",
  appName: "spark.app.name",
  streamingQueryId: "spark.sql.streaming.queryId",
  streamingEpochId: "spark.sql.streaming.epochId",
} as const;

/**
 * Trino's Iceberg connector: trinodb/trino, plugin/trino-iceberg/src/main/java/io/trino/plugin/
 * iceberg/IcebergUtil.java, `commit(SnapshotUpdate, ConnectorSession)` sets
 * TRINO_QUERY_ID_NAME = "trino_query_id" on every snapshot it commits. Read from a stored copy of
 * that file whose commit the index did not give; the stored trinodb/trino IcebergMetadata.java at
 * 89405ed7a77c92e5aef6e0a40009b3885ef18b03 predates the key (older Trino writes none).
 */
export const TRINO_KEYS = {
  queryId: "trino_query_id",
} as const;

/**
 * Any engine on a recent Iceberg core: apache/iceberg @ 7f879b1,
 * core/src/main/java/org/apache/iceberg/EnvironmentContext.java (engine-name, engine-version,
 * iceberg-version), put into every summary by SnapshotProducer.summary(); Flink sets
 * engine-name "flink" (FlinkEnvironmentContext), Spark "spark" (SparkCatalog).
 */
export const ENGINE_KEYS = {
  name: "engine-name",
  version: "engine-version",
} as const;

/**
 * Free-form labels a writer may add itself (snapshot-property.job, app-id): they name the writer
 * in its own words, which is what the writer-identity audit check asks for.
 */
export const LABEL_KEYS = ["job", "app-id"] as const;
