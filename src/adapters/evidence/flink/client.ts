// FlinkPort over the Flink REST API: the job, its checkpoints and exceptions, the Iceberg
// committer's metrics (found by listing metric ids, never by guessing operator names), and
// back pressure on the sink side of the job.

import type { z } from "zod";
import type {
  CommitterMetrics,
  FlinkBackpressure,
  FlinkCheckpointSummary,
  FlinkCheckpoints,
  FlinkJobEvidence,
  FlinkJobSummary,
  FlinkVertex,
  TableRef,
} from "../../../core/evidence/model.js";
import { formatTableName, sanitizeForMetric } from "../../../core/table-name.js";
import { CodedError, ErrorCode, unless404 } from "../../../errors.js";
import type { FlinkPort } from "../../../services/ports.js";
import { jsonGetter, type SourceClientOptions } from "../http.js";
import { toExceptions } from "./exceptions.js";
import {
  type CommitterMetricId,
  foldCommitterMetrics,
  parseCommitterMetricId,
  pickMetricTable,
} from "./metrics.js";
import {
  AggregatedMetricsSchema,
  BackPressureSchema,
  CheckpointConfigSchema,
  CheckpointingStatisticsSchema,
  type CheckpointStats,
  type Job,
  JobDetailsSchema,
  JobExceptionsSchema,
  JobsOverviewSchema,
  MetricIdsSchema,
  MetricValuesSchema,
} from "./schemas.js";

const JOB_ID = /^[0-9a-f]{32}$/;
const SINK_VERTEX = /sink|committer|writer/i;
const SOURCE_VERTEX = /^Source:/;

export function createFlinkClient(options: SourceClientOptions): FlinkPort {
  const get = jsonGetter({ ...options, source: "flink" });
  return {
    listJobs: async () => (await get("jobs/overview", JobsOverviewSchema)).jobs.map(toJobSummary),
    getJobEvidence: (jobId, table) => jobEvidence(get, jobId, table),
  };
}

type JsonGet = ReturnType<typeof jsonGetter>;

/** GETs a path under one vertex of the job being read (`metrics`, `backpressure`, …). */
type VertexGet = <S extends z.ZodType>(
  vertexId: string,
  rest: string,
  schema: S,
  query?: Record<string, string>,
) => Promise<z.output<S>>;

async function jobEvidence(get: JsonGet, jobId: string, table: TableRef): Promise<FlinkJobEvidence> {
  if (!JOB_ID.test(jobId)) {
    throw new CodedError(ErrorCode.UsageInvalid, "A Flink job id is 32 hexadecimal characters", {
      hint: "Copy the job id from the Flink UI or GET /jobs/overview.",
      details: { length: jobId.length },
    });
  }
  const jobPath = `jobs/${jobId}`;
  // Only the metric and back-pressure reads need the vertex ids; the rest start at once.
  // A 404 for checkpoints means the feature is off for this job, not a failure.
  const early = Promise.all([
    unless404(get(`${jobPath}/checkpoints`, CheckpointingStatisticsSchema), undefined),
    unless404(get(`${jobPath}/checkpoints/config`, CheckpointConfigSchema), undefined),
    get(`${jobPath}/exceptions`, JobExceptionsSchema),
  ]);
  early.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  const details = await get(jobPath, JobDetailsSchema);
  const vertexGet: VertexGet = (vertexId, rest, schema, query) =>
    get(`${jobPath}/vertices/${encodeURIComponent(vertexId)}/${rest}`, schema, query);
  const vertices: FlinkVertex[] = details.vertices.map((v) => ({
    vertexId: v.id,
    name: v.name,
    parallelism: v.parallelism,
    status: v.status,
  }));
  const [[checkpoints, checkpointConfig, exceptions], committer, pressure, rate] = await Promise.all([
    early,
    committerMetrics(vertexGet, vertices, table),
    backpressure(
      vertexGet,
      vertices.filter((v) => SINK_VERTEX.test(v.name)),
    ),
    sourceRate(vertexGet, vertices),
  ]);
  return {
    job: toJobSummary(details),
    vertices,
    checkpoints: checkpoints ? toCheckpoints(checkpoints) : undefined,
    checkpointConfig: checkpointConfig
      ? {
          intervalMs: checkpointConfig.interval,
          timeoutMs: checkpointConfig.timeout,
          mode: checkpointConfig.mode,
        }
      : undefined,
    exceptions: toExceptions(exceptions),
    committer,
    backpressure: pressure,
    ...(rate !== undefined ? { sourceRecordsPerSecond: rate } : {}),
  };
}

async function committerMetrics(
  get: VertexGet,
  vertices: readonly FlinkVertex[],
  table: TableRef,
): Promise<CommitterMetrics | undefined> {
  const filtered = sanitizeForMetric(formatTableName(table));
  const listIds = async (some: readonly FlinkVertex[]) => {
    const listed = await Promise.all(
      some.map(async (vertex) => {
        const ids = await get(vertex.vertexId, "metrics", MetricIdsSchema);
        return ids
          .map((m) => parseCommitterMetricId(m.id, vertex.vertexId))
          .filter((m): m is CommitterMetricId => m !== undefined);
      }),
    );
    return listed.flat().filter((c) => pickMetricTable([c], filtered).length > 0);
  };
  // Metric lists are long on wide jobs: look at the sink side first, the rest only if needed.
  const sinkSide = vertices.filter((v) => SINK_VERTEX.test(v.name));
  let candidates = await listIds(sinkSide);
  if (candidates.length === 0) candidates = await listIds(vertices.filter((v) => !sinkSide.includes(v)));
  const tables = pickMetricTable(candidates, filtered);
  if (tables.length === 0) return undefined;
  if (tables.length > 1) {
    throw new CodedError(
      ErrorCode.TableAmbiguous,
      `The Flink job commits to several tables whose metric names end with ${filtered}: ${tables.join(", ")}`,
      {
        hint: "Flink metric names drop the dots, so these cannot be told apart; configure the writer job per table or check the sink's table names.",
        details: { source: "flink", metricTables: tables },
      },
    );
  }
  const chosen = candidates.filter((c) => c.metricTable === tables[0]);
  // One committer vertex: if the table shows up on several, read the first one.
  const vertexId = chosen[0]?.vertexId;
  const onVertex = chosen.filter((c) => c.vertexId === vertexId);
  const values = await get(vertexId ?? "", "metrics", MetricValuesSchema, {
    get: onVertex.map((c) => c.id).join(","),
  });
  return foldCommitterMetrics(onVertex, new Map(values.map((v) => [v.id, Number(v.value)])));
}

async function backpressure(get: VertexGet, vertices: readonly FlinkVertex[]): Promise<FlinkBackpressure[]> {
  const read = await Promise.all(
    vertices.map(async (vertex) => {
      try {
        const info = await get(vertex.vertexId, "backpressure", BackPressureSchema);
        const ratios = info.subtasks.map((s) => s.ratio ?? 0);
        return {
          vertexId: vertex.vertexId,
          vertexName: vertex.name,
          level: info.backpressureLevel ?? "ok",
          maxRatio: ratios.length > 0 ? Math.max(...ratios) : 0,
        } satisfies FlinkBackpressure;
      } catch {
        // Back pressure is sampled on demand and often not ready yet; it is a hint, not a must.
        return undefined;
      }
    }),
  );
  return read.filter((b): b is FlinkBackpressure => b !== undefined);
}

/**
 * Records per second the job's sources emit now (summed over their subtasks): 0 says the input
 * is idle, so a writer with empty commits switched off is quiet by design. A hint, never a must.
 */
async function sourceRate(get: VertexGet, vertices: readonly FlinkVertex[]): Promise<number | undefined> {
  const sources = vertices.filter((v) => SOURCE_VERTEX.test(v.name));
  if (sources.length === 0) return undefined;
  try {
    const sums = await Promise.all(
      sources.map(async (vertex) => {
        const values = await get(vertex.vertexId, "subtasks/metrics", AggregatedMetricsSchema, {
          get: "numRecordsOutPerSecond",
          agg: "sum",
        });
        return values.find((m) => m.id === "numRecordsOutPerSecond")?.sum;
      }),
    );
    if (sums.some((s) => s === undefined)) return undefined;
    return sums.reduce((a: number, b) => a + (b ?? 0), 0);
  } catch {
    return undefined;
  }
}

function toCheckpointSummary(stats: CheckpointStats): FlinkCheckpointSummary {
  return {
    id: stats.id,
    status: stats.status,
    triggerTimestampMs: stats.trigger_timestamp,
    latestAckTimestampMs: stats.latest_ack_timestamp ?? undefined,
    endToEndDurationMs: stats.end_to_end_duration ?? undefined,
    failureMessage: stats.failure_message ?? undefined,
  };
}

function toJobSummary(job: Job): FlinkJobSummary {
  return { jobId: job.jid, name: job.name, state: job.state, startTimeMs: job["start-time"] };
}

function toCheckpoints(raw: z.output<typeof CheckpointingStatisticsSchema>): FlinkCheckpoints {
  const completed = raw.latest?.completed;
  const failed = raw.latest?.failed;
  const restored = raw.latest?.restored;
  return {
    counts: {
      restored: raw.counts.restored,
      total: raw.counts.total,
      inProgress: raw.counts.in_progress,
      completed: raw.counts.completed,
      failed: raw.counts.failed,
    },
    latestCompleted: completed ? toCheckpointSummary(completed) : undefined,
    latestFailed: failed ? toCheckpointSummary(failed) : undefined,
    ...(restored
      ? {
          latestRestored: {
            id: restored.id,
            ...(restored.restore_timestamp ? { restoreTimestampMs: restored.restore_timestamp } : {}),
            ...(restored.is_savepoint !== undefined && restored.is_savepoint !== null
              ? { isSavepoint: restored.is_savepoint }
              : {}),
          },
        }
      : {}),
    history: raw.history.map(toCheckpointSummary),
  };
}
