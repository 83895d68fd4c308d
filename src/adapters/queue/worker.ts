// The consumer side of every BullMQ queue, one shape for all: a worker reads each job against its
// schema, hands the payload to its processor (in services/), and fails, retries or leaves the job
// by one policy. Its events go to the bot's hooks. Producers are in queues.ts.

import { type ConnectionOptions, DelayedError, type Job, UnrecoverableError, Worker } from "bullmq";
import type { z } from "zod";
import { CodedError, ErrorCode, isCodedError } from "../../errors.js";
import { DEFAULT_PREFIX } from "./queues.js";

/**
 * A job this release cannot read (a shape a newer release queues, or a record a newer release
 * stored) is left for a newer worker: moved back to delayed for this long, without spending an
 * attempt, whichever worker takes it next. One look per job per this long: never a loop.
 */
export const LEAVE_FOR_NEWER_MS = 5 * 60_000;
/** A job no worker could read for this long fails and is kept (a week, removeOnFail) for inspection. */
const UNREAD_JOB_MAX_AGE_MS = 7 * 86_400_000;

/** What every worker of a process shares: its connection, lock settings and event hooks. */
export interface WorkerSettings {
  connection: ConnectionOptions;
  prefix?: string;
  /** How long a job stays locked without a heartbeat; a dead worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  onFailed?: (queue: string, job: Job | undefined, error: Error) => void;
  /** Every worker error (a lost connection, a lock that could not be renewed) is reported here. */
  onError: (queue: string, error: Error) => void;
  onCompleted?: (queue: string, job: Job) => void;
  /** A job left for a newer release; called each time it is left. */
  onLeft?: (queue: string, job: Job, error: CodedError) => void;
}

export interface WorkerShape {
  concurrency: number;
  /**
   * Jobs per duration across every worker of the queue (BullMQ's limiter). A processor's 429 or
   * 503 with Retry-After then makes the whole queue wait as long as asked, without spending the
   * job's attempt.
   */
  limiter?: { max: number; duration: number };
}

/** The job's payload as this release reads it, or a coded error that leaves the job for a newer release. */
function readJob<T>(schema: z.ZodType<T>, job: Job): T {
  const parsed = schema.safeParse(job.data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new CodedError(
    ErrorCode.StoredRecordInvalid,
    `Job ${job.id} (${job.name}) of queue ${job.queueName} is not of a shape this release reads: ${issue?.path.join(".") || "job"}: ${issue?.message ?? "invalid"}`,
    {
      hint: "A newer iceberg-bot queued it: it is left for a worker of that release (docs/operations.md, Upgrading and rolling back).",
      details: { queue: job.queueName, jobId: job.id, name: job.name, newer: true },
    },
  );
}

/** Whether an error says a newer release wrote what the job needs (its payload or a stored record). */
function isLeftForNewer(error: unknown): error is CodedError {
  return isCodedError(error, ErrorCode.StoredRecordInvalid) && error.details?.newer === true;
}

/** How long a 429 or 503 asked to wait (Retry-After), or undefined. */
function retryAfterMsOf(error: unknown): number | undefined {
  if (!isCodedError(error)) return undefined;
  const status = error.details?.status;
  const wait = error.details?.retryAfterMs;
  if ((status !== 429 && status !== 503) || typeof wait !== "number" || wait <= 0) return undefined;
  return wait;
}

/** Jobs a process remembers having logged as left; beyond it, it starts over (one more line each). */
const LEFT_JOBS_REMEMBERED = 10_000;

/**
 * The onLeft hook: a newer release's job is looked at again every few minutes until a worker of
 * that release takes it; counted each time, said once per job by this process, so no log storm.
 */
export function leftJobReporter(report: {
  count: (queue: string) => void;
  log: { warn(fields: object, message: string): void };
}): NonNullable<WorkerSettings["onLeft"]> {
  const logged = new Set<string>();
  return (queue, job, error) => {
    report.count(queue);
    const key = `${queue}\u0000${job.id}`;
    if (logged.has(key)) return;
    if (logged.size >= LEFT_JOBS_REMEMBERED) logged.clear();
    logged.add(key);
    report.log.warn(
      { queue, job: job.id, name: job.name, err: error.message },
      "job left for a newer release",
    );
  };
}

/** Whether this run of the job is its last attempt. */
export function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * Starts a worker of `name`. Errors that will not get better with time fail the job at once;
 * coded errors marked retryable and unknown errors (network, Slack 5xx) are retried with the
 * queue's backoff. What a newer release wrote is left for it (LEAVE_FOR_NEWER_MS).
 */
export function startWorker<T>(
  name: string,
  schema: z.ZodType<T>,
  process: (data: T, job: Job<T>) => Promise<void>,
  shape: WorkerShape,
  settings: WorkerSettings,
): Worker<T> {
  const worker: Worker<T> = new Worker<T>(
    name,
    async (job: Job<T>, token?: string) => {
      try {
        await process(readJob(schema, job), job);
      } catch (error) {
        const wait = shape.limiter ? retryAfterMsOf(error) : undefined;
        if (wait !== undefined) {
          await worker.rateLimit(wait);
          throw Worker.RateLimitError();
        }
        if (isLeftForNewer(error) && token !== undefined) {
          const now = Date.now();
          if (now - job.timestamp < UNREAD_JOB_MAX_AGE_MS) {
            await job.moveToDelayed(now + LEAVE_FOR_NEWER_MS, token);
            settings.onLeft?.(name, job as Job, error);
            throw new DelayedError();
          }
        }
        if (isCodedError(error) && !error.retryable) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    {
      connection: settings.connection,
      prefix: settings.prefix ?? DEFAULT_PREFIX,
      lockDuration: settings.lockDurationMs ?? 30_000,
      stalledInterval: settings.stalledIntervalMs ?? 30_000,
      maxStalledCount: 2,
      concurrency: shape.concurrency,
      ...(shape.limiter ? { limiter: shape.limiter } : {}),
    },
  );
  worker.on("failed", (job, error) => settings.onFailed?.(name, job, error));
  worker.on("completed", (job) => settings.onCompleted?.(name, job));
  // Job errors are reported through "failed"; the worker's own (a Redis blip, a lock it could
  // not renew) here, and a listener keeps them from crashing the process.
  worker.on("error", (error) => settings.onError(name, error));
  return worker;
}
