// Checkpoint statistics and configuration of a simulated Flink job, as /jobs/{id}/checkpoints and
// /jobs/{id}/checkpoints/config render them. Counters grow with the clock from the scenario's base.

import type { SimJob, World } from "../../model/world.js";
import { resolveRelative } from "../../time.js";
import { jobVertices } from "./model.js";

function stats(value: number): Record<string, number> {
  return {
    min: Math.round(value * 0.6),
    max: Math.round(value * 1.9),
    avg: value,
    p50: value,
    p90: value * 1.4,
    p95: value * 1.6,
    p99: value * 1.8,
    p999: value * 1.9,
  };
}

export function checkpointCounts(job: SimJob, now: number) {
  const cp = job.scenario.checkpoints;
  const ticks = Math.max(0, Math.floor((now - job.baseMs) / cp.intervalMs));
  const completed = cp.completed + (cp.failing ? 0 : ticks);
  const failed = cp.failed + (cp.failing ? ticks : 0);
  return { completed, failed, inProgress: cp.inProgress };
}

/** The flink.max-committed-checkpoint-id of the job's newest snapshot in the table it writes. */
function committedCheckpoint(world: World, job: SimJob): number | undefined {
  const sink = job.scenario.committer?.table;
  const table = sink ? world.tableForSinkName(sink, job.scenario.id) : undefined;
  const newest = table?.newestBy({
    kind: "flink",
    jobId: job.scenario.id,
    checkpointStart: 1,
    commitsPerCheckpoint: 1,
  });
  const id = Number(newest?.summary["flink.max-committed-checkpoint-id"]);
  return Number.isFinite(id) ? id : undefined;
}

function latestCompletedMs(world: World, job: SimJob, now: number): number {
  const cp = job.scenario.checkpoints;
  if (cp.latestCompletedAt !== undefined) {
    const at = resolveRelative(cp.latestCompletedAt, world.startMs);
    if (cp.failing) return at;
    return at + Math.floor(Math.max(0, now - job.baseMs) / cp.intervalMs) * cp.intervalMs;
  }
  return now - ((now - job.startedMs) % cp.intervalMs);
}

function checkpointEntry(
  job: SimJob,
  id: number,
  status: "COMPLETED" | "FAILED",
  at: number,
  failure?: string,
) {
  const cp = job.scenario.checkpoints;
  const vertices = jobVertices(job);
  const subtasks = vertices.reduce((n, v) => n + v.parallelism, 0);
  const size = 180_000_000 + (id % 7) * 1_000_000;
  const tasks: Record<string, unknown> = {};
  for (const v of vertices) {
    tasks[v.id] = {
      id,
      status,
      latest_ack_timestamp: at,
      checkpointed_size: Math.round(size / vertices.length),
      state_size: Math.round(size / vertices.length),
      end_to_end_duration: cp.endToEndDurationMs,
      alignment_buffered: 0,
      processed_data: 0,
      persisted_data: 0,
      num_subtasks: v.parallelism,
      num_acknowledged_subtasks: status === "COMPLETED" ? v.parallelism : 0,
    };
  }
  const base = {
    className: status === "COMPLETED" ? "completed" : "failed",
    id,
    status,
    is_savepoint: false,
    trigger_timestamp: at - cp.endToEndDurationMs,
    latest_ack_timestamp: at,
    checkpointed_size: size,
    state_size: size,
    end_to_end_duration: cp.endToEndDurationMs,
    alignment_buffered: 0,
    processed_data: 0,
    persisted_data: 0,
    num_subtasks: subtasks,
    num_acknowledged_subtasks: status === "COMPLETED" ? subtasks : subtasks - 1,
    checkpoint_type: "CHECKPOINT",
    tasks,
  };
  return status === "COMPLETED"
    ? { ...base, external_path: `s3://lake/checkpoints/${job.scenario.id}/chk-${id}`, discarded: false }
    : {
        ...base,
        failure_timestamp: at,
        failure_message: failure ?? "Checkpoint expired before completing.",
      };
}

export function checkpointStatistics(world: World, job: SimJob, now: number) {
  const cp = job.scenario.checkpoints;
  const counts = checkpointCounts(job, now);
  const total = counts.completed + counts.failed + counts.inProgress;
  const latestAt = latestCompletedMs(world, job, now);
  const failMessage = cp.latestFailed?.message;
  const history: unknown[] = [];
  let latestCompleted: unknown;
  let latestFailed: unknown;
  for (let k = 0; k < Math.min(10, counts.completed + counts.failed); k++) {
    const id = counts.completed + counts.failed - k;
    const at = (cp.failing ? now - ((now - job.startedMs) % cp.intervalMs) : latestAt) - k * cp.intervalMs;
    const failedNow = cp.failing && k < counts.failed;
    const entry = checkpointEntry(job, id, failedNow ? "FAILED" : "COMPLETED", at, failMessage);
    history.push(entry);
    if (failedNow && !latestFailed) latestFailed = entry;
    if (!failedNow && !latestCompleted) latestCompleted = entry;
  }
  if (cp.failing && !latestCompleted && counts.completed > 0) {
    latestCompleted = checkpointEntry(job, counts.completed, "COMPLETED", latestAt);
  }
  if (!latestFailed && cp.latestFailed) {
    const at = resolveRelative(cp.latestFailed.at, world.startMs);
    latestFailed = checkpointEntry(
      job,
      Math.max(1, counts.completed - 3),
      "FAILED",
      at,
      cp.latestFailed.message,
    );
  }
  const restarts = job.scenario.exceptions.length;
  const latest: Record<string, unknown> = {};
  if (latestCompleted) latest.completed = latestCompleted;
  if (latestFailed) latest.failed = latestFailed;
  if (restarts > 0) {
    const newest = Math.max(...job.scenario.exceptions.map((e) => resolveRelative(e.at, world.startMs)));
    // A consistent restore resumes from the checkpoint the table last committed for this job;
    // a scenario can restore from a later one whose commits the table no longer has.
    const id =
      cp.restoredCheckpointId ?? committedCheckpoint(world, job) ?? Math.max(1, counts.completed - 1);
    latest.restored = {
      id,
      restore_timestamp: newest + 12_000,
      is_savepoint: false,
      external_path: `s3://lake/checkpoints/${job.scenario.id}/chk-${id}`,
    };
  }
  return {
    counts: {
      restored: restarts,
      total,
      in_progress: counts.inProgress,
      completed: counts.completed,
      failed: counts.failed,
    },
    summary: {
      checkpointed_size: stats(180_000_000),
      state_size: stats(180_000_000),
      end_to_end_duration: stats(cp.endToEndDurationMs),
      alignment_buffered: stats(0),
      processed_data: stats(0),
      persisted_data: stats(0),
    },
    latest,
    history,
  };
}

export function checkpointConfig(job: SimJob) {
  const cp = job.scenario.checkpoints;
  return {
    mode: "EXACTLY_ONCE",
    interval: cp.intervalMs,
    timeout: cp.timeoutMs,
    min_pause: 0,
    max_concurrent: 1,
    externalization: { enabled: true, delete_on_cancellation: false },
    state_backend: "EmbeddedRocksDBStateBackend",
    checkpoint_storage: "FileSystemCheckpointStorage",
    unaligned_checkpoints: false,
    tolerable_failed_checkpoints: 0,
    aligned_checkpoint_timeout: 0,
    checkpoints_after_tasks_finish: true,
    state_changelog_enabled: false,
    changelog_periodic_materialization_interval: 600_000,
    changelog_storage: "memory",
  };
}
