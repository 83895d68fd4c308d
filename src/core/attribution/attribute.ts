// Who wrote a snapshot, read from every key it carries (the table in keys.ts), and whether it is a
// given writer's. The one place the core ties snapshots to writers by their keys; timing.ts ties
// the ones that carry none.

import type { Snapshot } from "../evidence/model.js";
import {
  CONNECT_CONFIG,
  CONNECT_DEFAULT_GROUP_PREFIX,
  CONNECT_KEYS,
  ENGINE_KEYS,
  FLINK_KEYS,
  LABEL_KEYS,
  SPARK_KEYS,
  TRINO_KEYS,
} from "./keys.js";

/** Which Kafka Connect sink wrote the keys: Apache Iceberg's, or the older tabular-io/databricks one. */
type ConnectGeneration = "iceberg" | "tabular" | "unknown";

export type CommitterIdentity =
  | { kind: "flink"; jobId: string; operatorId?: string; checkpointId?: string }
  | { kind: "spark"; appId: string; appName?: string; streamingQueryId?: string }
  | {
      kind: "connect";
      connector?: string;
      taskId?: string;
      /** The consumer group named in the control-topic offsets key. */
      group?: string;
      generation?: ConnectGeneration;
    }
  | { kind: "trino"; queryId: string }
  /** Only engine-name (and version): the engine is known, the writer is not. */
  | { kind: "engine"; name: string; version?: string }
  | { kind: "other"; label: string }
  | { kind: "anonymous" };

/** The writer a diagnosis is about. */
export type WriterRef =
  | { kind: "flink"; jobId: string }
  | {
      kind: "connect";
      connector: string;
      /** Consumer groups the connector's config names (iceberg.connect.group-id, iceberg.control.group-id). */
      groups?: readonly string[];
    };

interface OffsetsKey {
  topic?: string;
  group?: string;
  generation: ConnectGeneration;
}

/** The control-topic offsets key, split into topic and group where the key names them. */
function offsetsKey(summary: Record<string, string>): OffsetsKey | undefined {
  for (const key of Object.keys(summary)) {
    if (key.startsWith(CONNECT_KEYS.offsetsPrefixTabularEarly))
      return { topic: key.slice(CONNECT_KEYS.offsetsPrefixTabularEarly.length), generation: "tabular" };
    if (!key.startsWith(CONNECT_KEYS.offsetsPrefix)) continue;
    const rest = key.slice(CONNECT_KEYS.offsetsPrefix.length);
    // "<topic>.<group>": the default control topic has no dot; a custom one may, so try it first.
    const topic = rest.startsWith(`${CONNECT_CONFIG.defaultControlTopic}.`)
      ? CONNECT_CONFIG.defaultControlTopic
      : rest.slice(0, Math.max(0, rest.indexOf(".")));
    const group = topic ? rest.slice(topic.length + 1) : rest;
    return { ...(topic ? { topic } : {}), ...(group ? { group } : {}), generation: generationOfGroup(group) };
  }
  return undefined;
}

function generationOfGroup(group: string | undefined): ConnectGeneration {
  if (group?.startsWith(CONNECT_DEFAULT_GROUP_PREFIX.tabular)) return "tabular";
  if (group?.startsWith(CONNECT_DEFAULT_GROUP_PREFIX.iceberg)) return "iceberg";
  return "unknown";
}

/** The connector a default consumer group names ("connect-<name>", "cg-control-<name>"). */
function connectorOfGroup(group: string): string | undefined {
  for (const prefix of Object.values(CONNECT_DEFAULT_GROUP_PREFIX))
    if (group.startsWith(prefix) && group.length > prefix.length) return group.slice(prefix.length);
  return undefined;
}

function connectorOfTask(taskId: string): string | undefined {
  return /^(.+)-\d+$/.exec(taskId)?.[1];
}

function connectIdentity(s: Record<string, string>): CommitterIdentity | undefined {
  const taskId = s[CONNECT_KEYS.taskId];
  const offsets = offsetsKey(s);
  const marked =
    taskId !== undefined ||
    offsets !== undefined ||
    s[CONNECT_KEYS.commitId] !== undefined ||
    s[CONNECT_KEYS.commitIdTabularEarly] !== undefined ||
    s[CONNECT_KEYS.validThrough] !== undefined ||
    s[CONNECT_KEYS.validThroughTabular] !== undefined;
  if (!marked) return undefined;
  const generation: ConnectGeneration =
    taskId !== undefined || s[CONNECT_KEYS.validThrough] !== undefined
      ? "iceberg"
      : s[CONNECT_KEYS.validThroughTabular] !== undefined ||
          s[CONNECT_KEYS.commitIdTabularEarly] !== undefined
        ? "tabular"
        : (offsets?.generation ?? "unknown");
  const group = offsets?.group;
  const connector =
    (taskId ? connectorOfTask(taskId) : undefined) ?? (group ? connectorOfGroup(group) : undefined);
  return {
    kind: "connect",
    ...(connector ? { connector } : {}),
    ...(taskId ? { taskId } : {}),
    ...(group ? { group } : {}),
    generation,
  };
}

/** Who committed a snapshot, from the most specific key it carries. */
export function committerOf(snapshot: Snapshot): CommitterIdentity {
  const s = snapshot.summary;
  const jobId = s[FLINK_KEYS.jobId];
  if (jobId) {
    const operatorId = s[FLINK_KEYS.operatorId];
    const checkpointId = s[FLINK_KEYS.checkpointId];
    return {
      kind: "flink",
      jobId,
      ...(operatorId ? { operatorId } : {}),
      ...(checkpointId ? { checkpointId } : {}),
    };
  }
  const appId = s[SPARK_KEYS.appId];
  const queryId = s[SPARK_KEYS.streamingQueryId];
  if (appId || queryId) {
    const appName = s[SPARK_KEYS.appName];
    return {
      kind: "spark",
      appId: appId ?? queryId!,
      ...(appName ? { appName } : {}),
      ...(queryId ? { streamingQueryId: queryId } : {}),
    };
  }
  const connect = connectIdentity(s);
  if (connect) return connect;
  const trino = s[TRINO_KEYS.queryId];
  if (trino) return { kind: "trino", queryId: trino };
  for (const key of LABEL_KEYS) {
    const label = s[key];
    if (label) return { kind: "other", label };
  }
  const engine = s[ENGINE_KEYS.name];
  if (engine) {
    const version = s[ENGINE_KEYS.version];
    return { kind: "engine", name: engine, ...(version ? { version } : {}) };
  }
  return { kind: "anonymous" };
}

/** True when the snapshot names no writer: no key but, at most, the engine's name. */
export function withoutWriterId(identity: CommitterIdentity): boolean {
  return identity.kind === "anonymous" || identity.kind === "engine";
}

/** A stable key per committer, for counting distinct committers. */
export function committerKey(identity: CommitterIdentity): string {
  switch (identity.kind) {
    case "flink":
      return `flink:${identity.jobId}`;
    case "spark":
      return `spark:${identity.appId}`;
    case "connect":
      return `connect:${identity.connector ?? identity.group ?? "?"}`;
    case "trino":
      // Each query is its own commit; Trino as a whole is the writer people recognise.
      return "trino";
    case "engine":
      return `engine:${identity.name}`;
    case "other":
      return `other:${identity.label}`;
    default:
      return "anonymous";
  }
}

/** Words for a committer in a summary line, e.g. "Spark app application_1700000000000_0412". */
export function describeCommitter(identity: CommitterIdentity): string {
  switch (identity.kind) {
    case "flink":
      return `Flink job ${identity.jobId}`;
    case "spark": {
      const what = identity.streamingQueryId ? "Spark streaming query" : "Spark app";
      const id =
        identity.streamingQueryId && identity.appId === identity.streamingQueryId ? "" : identity.appId;
      if (identity.appName) return `${what} ${identity.appName}${id ? ` (${id})` : ""}`;
      return identity.streamingQueryId && !id ? `${what} ${identity.streamingQueryId}` : `${what} ${id}`;
    }
    case "connect":
      if (identity.connector) return `connector ${identity.connector}`;
      return identity.group ? `a Kafka Connect sink (group ${identity.group})` : "a Kafka Connect sink";
    case "trino":
      return `Trino query ${identity.queryId}`;
    case "engine":
      return `an unknown ${identity.name}${identity.version ? ` ${identity.version}` : ""} writer (engine-name ${identity.name}, no writer id)`;
    case "other":
      return `writer "${identity.label}"`;
    default:
      return "an unidentified writer";
  }
}

/** The consumer groups a connector's commits can name: the configured ones and both defaults. */
function connectGroups(connector: string, configured: readonly string[] = []): Set<string> {
  return new Set([
    ...configured,
    `${CONNECT_DEFAULT_GROUP_PREFIX.iceberg}${connector}`,
    `${CONNECT_DEFAULT_GROUP_PREFIX.tabular}${connector}`,
  ]);
}

/** The group ids a connector's config sets, for either generation. */
export function configuredGroups(config: Record<string, string>): string[] {
  return [config[CONNECT_CONFIG.groupIceberg], config[CONNECT_CONFIG.groupTabular]].filter((g): g is string =>
    Boolean(g),
  );
}

/**
 * True when a Connect identity is this connector's: by its task id ("<connector>-<n>"; a bare
 * prefix test would also match "events-sink-v2-0"), else by the group its offsets key names.
 * A commit naming neither (the tabular sink before 0.4.0) is taken as the connector's: nothing
 * says it is another's.
 */
export function isConnectorCommit(
  identity: CommitterIdentity,
  connector: string,
  groups: ReadonlySet<string> = connectGroups(connector),
): boolean {
  if (identity.kind !== "connect") return false;
  if (identity.taskId !== undefined) {
    if (!identity.taskId.startsWith(`${connector}-`)) return false;
    return /^\d+$/.test(identity.taskId.slice(connector.length + 1));
  }
  if (identity.group !== undefined) return groups.has(identity.group);
  return true;
}

/** True when the snapshot carries the writer's keys. */
export function isWriterSnapshot(snapshot: Snapshot, writer: WriterRef): boolean {
  const identity = committerOf(snapshot);
  if (writer.kind === "flink") return identity.kind === "flink" && identity.jobId === writer.jobId;
  return isConnectorCommit(identity, writer.connector, connectGroups(writer.connector, writer.groups));
}

/** The committer operator id a snapshot carries, if any. */
export function operatorIdOf(snapshot: Snapshot): string | undefined {
  return snapshot.summary[FLINK_KEYS.operatorId];
}

/** The Flink job id a snapshot carries, if any. */
export function flinkJobIdOf(snapshot: Snapshot): string | undefined {
  return snapshot.summary[FLINK_KEYS.jobId] || undefined;
}

/** The checkpoint id a Flink commit carries, if any. */
export function checkpointIdOf(snapshot: Snapshot): string | undefined {
  return snapshot.summary[FLINK_KEYS.checkpointId];
}

/** How a snapshot was recognised as its writer's, in words for an evidence line. */
export function recognisedBy(identity: CommitterIdentity): string {
  switch (identity.kind) {
    case "flink":
      return `its ${FLINK_KEYS.jobId}${identity.operatorId ? ` and ${FLINK_KEYS.operatorId}` : ""}`;
    case "connect": {
      const sink =
        identity.generation === "tabular"
          ? "the older tabular-io/databricks Kafka Connect sink's keys"
          : identity.generation === "iceberg"
            ? "the Apache Iceberg Kafka Connect sink's keys"
            : "Kafka Connect sink keys";
      const by = identity.taskId
        ? `task id ${identity.taskId}`
        : identity.group
          ? `consumer group ${identity.group} in the control-topic offsets key`
          : "no connector name (taken as the only connector's)";
      return `${sink}, ${by}`;
    }
    case "spark":
      return identity.streamingQueryId ? `its ${SPARK_KEYS.streamingQueryId}` : `its ${SPARK_KEYS.appId}`;
    case "trino":
      return `its ${TRINO_KEYS.queryId}`;
    case "engine":
      return `only its ${ENGINE_KEYS.name}`;
    case "other":
      return "its own job label";
    default:
      return "no key";
  }
}
