// BullMQ queues and workers. One prefix with a hash tag keeps every queue key in one Redis
// Cluster slot; names are injectable so each test gets its own queues.

import { type ConnectionOptions, DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { z } from "zod";
import { CodedError, ErrorCode, isCodedError } from "../../errors.js";
import { batchedAdd } from "./batched-add.js";
import { type DiagnoseJob, diagnoseJobId, type SlackJob, slackJobId } from "./jobs.js";

export const DEFAULT_PREFIX = "{iceberg-bot}";

export interface QueueNames {
  diagnose: string;
  slack: string;
}

const DEFAULT_QUEUE_NAMES: QueueNames = { diagnose: "diagnose", slack: "slack" };

export interface QueueOptions {
  connection: ConnectionOptions;
  prefix?: string;
  names?: Partial<QueueNames>;
  attempts?: number;
  /** First retry delay; doubled on each attempt. */
  backoffMs?: number;
}

export interface BotQueues {
  names: QueueNames;
  prefix: string;
  diagnose: Queue<DiagnoseJob>;
  slack: Queue<SlackJob>;
  enqueueDiagnose(job: DiagnoseJob): Promise<string>;
  enqueueSlack(job: SlackJob): Promise<string | undefined>;
  depth(): Promise<Record<string, number>>;
  close(): Promise<void>;
  obliterate(): Promise<void>;
}

/**
 * The one way a queue is made, with the one retry policy every queue uses: a failed job is
 * retried with exponential backoff (doubling from `backoffMs`), and kept a week for inspection.
 */
export function createQueue<T>(
  name: string,
  options: { connection: ConnectionOptions; prefix: string; attempts?: number; backoffMs?: number },
): Queue<T> {
  const queue = new Queue<T>(name, {
    connection: options.connection,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: options.attempts ?? 6,
      backoff: { type: "exponential", delay: options.backoffMs ?? 1000 },
      removeOnComplete: { age: 86_400, count: 10_000 },
      removeOnFail: { age: 7 * 86_400 },
    },
  });
  // A lost connection is reported by the add() that needed it; the event itself adds nothing.
  queue.on("error", () => {});
  return queue;
}

export function createQueues(options: QueueOptions): BotQueues {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const names = { ...DEFAULT_QUEUE_NAMES, ...options.names };
  const common = {
    connection: options.connection,
    prefix,
    attempts: options.attempts,
    backoffMs: options.backoffMs,
  };
  const diagnose = createQueue<DiagnoseJob>(names.diagnose, common);
  const slack = createQueue<SlackJob>(names.slack, common);
  const addDiagnose = batchedAdd(diagnose);
  const addSlack = batchedAdd(slack);
  return {
    names,
    prefix,
    diagnose,
    slack,
    async enqueueDiagnose(job) {
      const jobId = diagnoseJobId(job);
      await addDiagnose(job.kind, job, { jobId });
      return jobId;
    },
    async enqueueSlack(job) {
      const jobId = slackJobId(job);
      const added = await addSlack(job.kind, job, jobId ? { jobId } : {});
      return added.id;
    },
    async depth() {
      const [d, s] = await Promise.all([
        diagnose.getJobCounts("waiting", "active", "delayed", "failed"),
        slack.getJobCounts("waiting", "active", "delayed", "failed"),
      ]);
      return { ...prefixed(names.diagnose, d), ...prefixed(names.slack, s) };
    },
    async close() {
      await Promise.all([diagnose.close(), slack.close()]);
    },
    async obliterate() {
      await Promise.all([diagnose.obliterate({ force: true }), slack.obliterate({ force: true })]);
    },
  };
}

function prefixed(queue: string, counts: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [state, n] of Object.entries(counts)) out[`${queue}.${state}`] = n;
  return out;
}

export interface WorkerOptions {
  connection: ConnectionOptions;
  prefix?: string;
  names?: Partial<QueueNames>;
  concurrency?: { diagnose?: number; slack?: number };
  /** How long a job stays locked without a heartbeat; a dead worker's job is taken over after it. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  onFailed?: (queue: string, job: Job | undefined, error: Error) => void;
  /** Every worker error (a lost connection, a lock that could not be renewed) is reported here. */
  onError: (queue: string, error: Error) => void;
  onCompleted?: (queue: string, job: Job) => void;
  /** A job left for a newer release (retryPolicy). */
  onLeft?: (queue: string, job: Job, error: CodedError) => void;
}

export interface BotWorkers {
  diagnose: Worker<DiagnoseJob>;
  slack: Worker<SlackJob>;
  /** Stops taking jobs and waits for the running ones (force: does not wait). */
  close(force?: boolean): Promise<void>;
}

/**
 * A job this release cannot read (a shape a newer release queues, or a record a newer release
 * stored) is left for a newer worker: moved back to delayed for this long, without spending an
 * attempt, whichever worker takes it next. One look per job per this long: never a loop.
 */
export const LEAVE_FOR_NEWER_MS = 5 * 60_000;
/** A job no worker could read for this long fails and is kept (a week, removeOnFail) for inspection. */
const UNREAD_JOB_MAX_AGE_MS = 7 * 86_400_000;

/** The job's payload as this release reads it, or a coded error that leaves the job for a newer release. */
export function readJob<T>(schema: z.ZodType<T>, job: Job): T {
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

export interface RetryHooks {
  /** A job left for a newer release (see LEAVE_FOR_NEWER_MS); called each time it is left. */
  onLeft?: (job: Job, error: CodedError) => void;
  /** Now in ms (tests); Date.now by default, as BullMQ's own delays. */
  now?: () => number;
}

/**
 * Errors that will not get better with time fail the job at once; coded errors marked retryable
 * and unknown errors (network, Slack 5xx) are retried with exponential backoff. What a newer
 * release wrote is left for it (isLeftForNewer).
 */
export function retryPolicy<T>(process: (job: Job<T>) => Promise<void>, hooks: RetryHooks = {}) {
  return async (job: Job<T>, token?: string) => {
    try {
      await process(job);
    } catch (error) {
      if (isLeftForNewer(error) && token !== undefined) {
        const now = hooks.now?.() ?? Date.now();
        if (now - job.timestamp < UNREAD_JOB_MAX_AGE_MS) {
          await job.moveToDelayed(now + LEAVE_FOR_NEWER_MS, token);
          hooks.onLeft?.(job as Job, error);
          throw new DelayedError();
        }
      }
      if (isCodedError(error) && !error.retryable) throw new UnrecoverableError(error.message);
      throw error;
    }
  };
}

/** Lock and stall settings every worker of the bot shares, so a dead worker's job is taken over alike. */
export function workerDefaults(options: {
  connection: ConnectionOptions;
  prefix?: string;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}) {
  return {
    connection: options.connection,
    prefix: options.prefix ?? DEFAULT_PREFIX,
    lockDuration: options.lockDurationMs ?? 30_000,
    stalledInterval: options.stalledIntervalMs ?? 30_000,
    maxStalledCount: 2,
  };
}

export function startWorkers(
  options: WorkerOptions,
  processors: {
    diagnose: (job: Job<DiagnoseJob>) => Promise<void>;
    slack: (job: Job<SlackJob>) => Promise<void>;
  },
): BotWorkers {
  const names = { ...DEFAULT_QUEUE_NAMES, ...options.names };
  const common = workerDefaults(options);
  const left = (queue: string): RetryHooks => ({
    onLeft: (job, error) => options.onLeft?.(queue, job, error),
  });
  const diagnose = new Worker<DiagnoseJob>(
    names.diagnose,
    retryPolicy(processors.diagnose, left(names.diagnose)),
    {
      ...common,
      concurrency: options.concurrency?.diagnose ?? 8,
    },
  );
  const slack = new Worker<SlackJob>(names.slack, retryPolicy(processors.slack, left(names.slack)), {
    ...common,
    concurrency: options.concurrency?.slack ?? 4,
  });
  for (const [queue, worker] of [
    [names.diagnose, diagnose],
    [names.slack, slack],
  ] as const) {
    worker.on("failed", (job, error) => options.onFailed?.(queue, job, error));
    worker.on("completed", (job) => options.onCompleted?.(queue, job));
    // Job errors are reported through "failed"; the worker's own (a Redis blip, a lock it could
    // not renew) here, and a listener keeps them from crashing the process.
    worker.on("error", (error) => options.onError(queue, error));
  }
  return {
    diagnose,
    slack,
    async close(force = false) {
      await Promise.all([diagnose.close(force), slack.close(force)]);
    },
  };
}
