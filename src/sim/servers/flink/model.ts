// How a simulated Flink job looks from the REST API: its vertices, operator names and the metric
// ids Flink derives from them (subtask prefix, filtered operator name, user groups).

import { hex32From } from "../../model/ids.js";
import type { SimJob, World } from "../../model/world.js";

export interface SimVertex {
  id: string;
  name: string;
  parallelism: number;
  /** The operator whose metric scope holds the Iceberg groups (filtered later). */
  operatorName: string;
  role: "source" | "writer" | "committer" | "sink";
}

const COMMITTER_METRICS = [
  "lastCheckpointDurationMs",
  "lastCommitDurationMs",
  "elapsedSecondsSinceLastSuccessfulCommit",
  "committedDataFilesCount",
  "committedDataFilesRecordCount",
  "committedDataFilesByteCount",
  "committedDeleteFilesCount",
  "committedDeleteFilesRecordCount",
  "committedDeleteFilesByteCount",
] as const;

const WRITER_METRICS = [
  "flushedDataFiles",
  "flushedDeleteFiles",
  "flushedReferencedDataFiles",
  "lastFlushDurationMs",
];
const TASK_METRICS = [
  "numRecordsIn",
  "numRecordsOut",
  "numRecordsInPerSecond",
  "numRecordsOutPerSecond",
  "busyTimeMsPerSecond",
  "idleTimeMsPerSecond",
  "backPressuredTimeMsPerSecond",
  "isBackPressured",
];

/** Flink's metric-scope character filter: space, dot, colon and comma become underscores. */
function filterChars(name: string): string {
  return name.replace(/[ .:,]/g, "_");
}

export function jobVertices(job: SimJob): SimVertex[] {
  const s = job.scenario;
  const vid = (i: number) => hex32From(`vertex:${s.id}:${i}`);
  const source: SimVertex = {
    id: vid(0),
    name: "Source: events-kafka-source -> Map",
    parallelism: s.parallelism,
    operatorName: "Source__events-kafka-source",
    role: "source",
  };
  const c = s.committer;
  if (!c) {
    return [
      source,
      {
        id: vid(1),
        name: s.sinkVertexName ?? "Sink: Unnamed",
        parallelism: s.parallelism,
        operatorName: s.sinkVertexName ?? "Sink: Unnamed",
        role: "sink",
      },
    ];
  }
  if (c.sink === "flink-sink-v1") {
    const writerOp = c.uidPrefix ? `${c.uidPrefix}-IcebergStreamWriter` : "IcebergStreamWriter";
    const committerOp = c.uidPrefix ? `${c.uidPrefix}-IcebergFilesCommitter` : "IcebergFilesCommitter";
    return [
      source,
      { id: vid(1), name: writerOp, parallelism: s.parallelism, operatorName: writerOp, role: "writer" },
      {
        id: vid(2),
        name: `${committerOp} -> Sink: IcebergSink ${c.table}`,
        parallelism: 1,
        operatorName: committerOp,
        role: "committer",
      },
    ];
  }
  const sinkName = c.uidPrefix ?? c.table;
  return [
    source,
    {
      id: vid(1),
      name: `${sinkName}: Writer`,
      parallelism: s.parallelism,
      operatorName: `${sinkName}: Writer`,
      role: "writer",
    },
    {
      id: vid(2),
      name: `${sinkName}: Committer`,
      parallelism: 1,
      operatorName: `${sinkName}: Committer`,
      role: "committer",
    },
  ];
}

/** Metric names of one subtask of a vertex, without the subtask prefix. */
export function vertexMetricNames(job: SimJob, v: SimVertex): string[] {
  const op = filterChars(v.operatorName);
  const names = [
    ...TASK_METRICS,
    `${op}.numRecordsIn`,
    `${op}.numRecordsOut`,
    `${op}.currentOutputWatermark`,
  ];
  const table = job.scenario.committer ? filterChars(job.scenario.committer.table) : undefined;
  if (table && v.role === "committer") {
    for (const m of COMMITTER_METRICS) names.push(`${op}.IcebergFilesCommitter.table.${table}.${m}`);
  }
  if (table && v.role === "writer") {
    for (const m of WRITER_METRICS) names.push(`${op}.IcebergStreamWriter.table.${table}.${m}`);
  }
  return names;
}

function backpressureShare(job: SimJob): number {
  return { ok: 0, low: 0.3, high: 0.85 }[job.scenario.backpressure];
}

/** Seconds since the writer's newest snapshot (or since the job started when it never committed). */
function elapsedSinceCommitSeconds(world: World, job: SimJob, nowMs: number): number {
  const c = job.scenario.committer;
  if (c?.elapsedSecondsSinceLastSuccessfulCommit !== undefined && !world.jobRecovered(job.scenario.id)) {
    return c.elapsedSecondsSinceLastSuccessfulCommit + Math.max(0, Math.floor((nowMs - job.baseMs) / 1000));
  }
  const table = c ? world.tableForSinkName(c.table, job.scenario.id) : undefined;
  const newest = table?.newestBy({
    kind: "flink",
    jobId: job.scenario.id,
    checkpointStart: 1,
    commitsPerCheckpoint: 1,
  });
  const since = Math.max(newest?.timestampMs ?? job.startedMs, job.startedMs);
  return Math.max(0, Math.floor((nowMs - since) / 1000));
}

/** Value of one metric of one subtask, as the number Flink would report. */
export function metricValue(world: World, job: SimJob, v: SimVertex, name: string, nowMs: number): number {
  const c = job.scenario.committer;
  const metric = name.slice(name.lastIndexOf(".") + 1);
  const uptimeS = Math.max(1, (nowMs - job.startedMs) / 1000);
  const bp = backpressureShare(job);
  switch (metric) {
    case "elapsedSecondsSinceLastSuccessfulCommit":
      return elapsedSinceCommitSeconds(world, job, nowMs);
    case "lastCommitDurationMs":
      return c?.lastCommitDurationMs[c.lastCommitDurationMs.length - 1] ?? 0;
    case "lastCheckpointDurationMs":
      return job.scenario.checkpoints.endToEndDurationMs;
    case "committedDataFilesCount":
      return c?.committedDataFilesCount ?? 0;
    case "committedDataFilesRecordCount":
      return (c?.committedDataFilesCount ?? 0) * 2_500;
    case "committedDataFilesByteCount":
      return c?.committedDataFilesByteCount ?? (c?.committedDataFilesCount ?? 0) * 48 * 1024 * 1024;
    case "committedDeleteFilesCount":
    case "committedDeleteFilesRecordCount":
    case "committedDeleteFilesByteCount":
    case "flushedDeleteFiles":
    case "flushedReferencedDataFiles":
      return 0;
    case "flushedDataFiles":
      return 2;
    case "lastFlushDurationMs":
      return 140;
    case "numRecordsIn":
    case "numRecordsOut":
      return Math.round(uptimeS * 65);
    case "numRecordsInPerSecond":
    case "numRecordsOutPerSecond":
      return job.scenario.recordsPerSecond;
    case "busyTimeMsPerSecond":
      return Math.round(120 + bp * 100);
    case "backPressuredTimeMsPerSecond":
      return v.role === "committer" ? 0 : Math.round(bp * 1000);
    case "idleTimeMsPerSecond":
      return Math.round(Math.max(0, 1000 - 120 - bp * 1100));
    case "isBackPressured":
      return bp > 0.5 && v.role !== "committer" ? 1 : 0;
    case "currentOutputWatermark":
      return nowMs - 4_000;
    default:
      return 0;
  }
}
