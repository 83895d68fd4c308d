// The sweep's two BullMQ queues. `sweep` carries the few control jobs (start, finish, an audit
// asked for from the digest) and the job scheduler that starts the weekly sweep; `sweep-catalog`
// carries one job per catalog round trip (a listing page or a table), and its workers share
// BullMQ's limiter so that all of them together stay under the catalog's requests per second.

import { createHash } from "node:crypto";
import { type ConnectionOptions, type Job, Queue, Worker } from "bullmq";
import { z } from "zod";
import type { CodedError } from "../../errors.js";
import { isCodedError } from "../../errors.js";
import type { SweepControlJob, SweepQueuePort, SweepTask } from "../../services/sweep/ports.js";
import { taskId } from "../../services/sweep/service.js";
import { DEFAULT_PREFIX, readJob, retryPolicy, workerDefaults } from "./queues.js";

const SCHEDULER_ID = "sweep-schedule";

/** What a worker checks a control job against before acting on it (readJob). */
export const SweepControlJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("start"),
    trigger: z.enum(["schedule", "command"]),
    requestedBy: z.string().optional(),
    channel: z.string().optional(),
  }),
  z.object({ kind: z.literal("finish"), sweepId: z.string() }),
  z.object({
    kind: z.literal("audit"),
    table: z.string(),
    channel: z.string(),
    threadTs: z.string(),
    user: z.string(),
  }),
  z.object({ kind: z.literal("fix"), table: z.string(), channel: z.string(), user: z.string() }),
]) satisfies z.ZodType<SweepControlJob>;

const page = {
  pageToken: z.string().optional(),
  page: z.number().int().optional(),
  catalog: z.string().optional(),
};
/** What a worker checks a catalog task against before acting on it (readJob). */
export const SweepTaskSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("namespaces"),
    sweepId: z.string(),
    parent: z.array(z.string()).optional(),
    ...page,
  }),
  z.object({ kind: z.literal("tables"), sweepId: z.string(), namespace: z.array(z.string()), ...page }),
  z.object({
    kind: z.literal("table"),
    sweepId: z.string(),
    table: z.string(),
    catalog: z.string().optional(),
  }),
]) satisfies z.ZodType<SweepTask>;

export interface SweepQueueNames {
  control: string;
  catalog: string;
}

export interface SweepQueueOptions {
  connection: ConnectionOptions;
  prefix?: string;
  /** Default: `sweep` and `sweep-catalog`; tests give each run its own. */
  names?: Partial<SweepQueueNames>;
  backoffMs?: number;
}

export interface SweepQueues extends SweepQueuePort {
  names: SweepQueueNames;
  control: Queue<SweepControlJob>;
  catalog: Queue<SweepTask>;
  /** Starts a sweep now (one per request id; a running sweep is not doubled). */
  requestSweep(request: { requestId: string; channel: string; user: string }): Promise<void>;
  requestAudit(request: {
    requestId: string;
    table: string;
    channel: string;
    threadTs: string;
    user: string;
  }): Promise<void>;
  requestFix(request: { requestId: string; table: string; channel: string; user: string }): Promise<void>;
  /** Creates or updates the schedule (same id from every process: one schedule); "" removes it. */
  schedule(pattern: string): Promise<void>;
  close(): Promise<void>;
  obliterate(): Promise<void>;
}

function defaultSweepNames(names: Partial<SweepQueueNames> = {}): SweepQueueNames {
  return { control: names.control ?? "sweep", catalog: names.catalog ?? "sweep-catalog" };
}

function idOf(text: string): string {
  return createHash("sha1").update(text).digest("base64url").slice(0, 20);
}

export function createSweepQueues(options: SweepQueueOptions): SweepQueues {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const names = defaultSweepNames(options.names);
  const backoff = { type: "exponential", delay: options.backoffMs ?? 1000 };
  const control = new Queue<SweepControlJob>(names.control, {
    connection: options.connection,
    prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff,
      removeOnComplete: { age: 86_400, count: 1000 },
      removeOnFail: { age: 7 * 86_400 },
    },
  });
  // Table jobs go away once done: what a table leaves behind is its result, not its job.
  const catalog = new Queue<SweepTask>(names.catalog, {
    connection: options.connection,
    prefix,
    // Nobody listens to this queue's event stream; a short one keeps Redis small during a sweep.
    streams: { events: { maxLen: 500 } },
    defaultJobOptions: { attempts: 3, backoff, removeOnComplete: true, removeOnFail: { age: 7 * 86_400 } },
  });
  return {
    names,
    control,
    catalog,
    async addTasks(tasks) {
      for (let i = 0; i < tasks.length; i += 500) {
        const batch = tasks.slice(i, i + 500);
        await catalog.addBulk(
          batch.map((task) => ({ name: task.kind, data: task, opts: { jobId: taskId(task) } })),
        );
      }
    },
    async addFinish(sweepId) {
      await control.add("finish", { kind: "finish", sweepId }, { jobId: `finish-${sweepId}` });
    },
    async requestSweep(request) {
      await control.add(
        "start",
        { kind: "start", trigger: "command", requestedBy: request.user, channel: request.channel },
        { jobId: `start-cmd-${idOf(request.requestId)}` },
      );
    },
    async requestAudit(request) {
      const { requestId, ...data } = request;
      await control.add("audit", { kind: "audit", ...data }, { jobId: `audit-${idOf(requestId)}` });
    },
    async requestFix(request) {
      const { requestId, ...data } = request;
      await control.add("fix", { kind: "fix", ...data }, { jobId: `fix-${idOf(requestId)}` });
    },
    async schedule(pattern) {
      if (pattern === "") {
        await control.removeJobScheduler(SCHEDULER_ID);
        return;
      }
      await control.upsertJobScheduler(
        SCHEDULER_ID,
        { pattern, tz: "UTC" },
        { name: "start", data: { kind: "start", trigger: "schedule" } },
      );
    },
    async close() {
      await Promise.all([control.close(), catalog.close()]);
    },
    async obliterate() {
      await control.removeJobScheduler(SCHEDULER_ID).catch(() => false);
      await Promise.all([control.obliterate({ force: true }), catalog.obliterate({ force: true })]);
    },
  };
}

export interface SweepWorkerOptions {
  connection: ConnectionOptions;
  prefix?: string;
  names?: Partial<SweepQueueNames>;
  /** The catalog's budget, shared by every worker through BullMQ's limiter. */
  catalogPerSecond: number;
  /** Catalog tasks in flight per worker process (they mostly wait on the network). */
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  onFailed?: (queue: string, job: Job | undefined, error: Error) => void;
  /** Every worker error (a lost connection, a lock that could not be renewed) is reported here. */
  onError: (queue: string, error: Error) => void;
  /** A job left for a newer release (retryPolicy). */
  onLeft?: (queue: string, job: Job, error: CodedError) => void;
}

export interface SweepWorkers {
  control: Worker<SweepControlJob>;
  catalog: Worker<SweepTask>;
  close(force?: boolean): Promise<void>;
}

/** BullMQ's limiter counts jobs per duration: below one per second the duration grows instead. */
function limiterFor(perSecond: number): { max: number; duration: number } {
  return perSecond >= 1
    ? { max: Math.floor(perSecond), duration: 1000 }
    : { max: 1, duration: Math.ceil(1000 / perSecond) };
}

export function startSweepWorkers(
  options: SweepWorkerOptions,
  processors: {
    control: (job: Job<SweepControlJob>) => Promise<void>;
    catalog: (job: Job<SweepTask>, lastAttempt: boolean) => Promise<void>;
  },
): SweepWorkers {
  const names = defaultSweepNames(options.names);
  const common = workerDefaults(options);
  const left = (queue: string) => ({
    onLeft: (job: Job, error: CodedError) => options.onLeft?.(queue, job, error),
  });
  const control = new Worker<SweepControlJob>(
    names.control,
    retryPolicy(async (job: Job<SweepControlJob>) => {
      readJob(SweepControlJobSchema, job);
      await processors.control(job);
    }, left(names.control)),
    {
      ...common,
      concurrency: 2,
    },
  );
  const catalog: Worker<SweepTask> = new Worker<SweepTask>(
    names.catalog,
    retryPolicy(async (job) => {
      readJob(SweepTaskSchema, job);
      try {
        await processors.catalog(job, job.attemptsMade + 1 >= (job.opts.attempts ?? 1));
      } catch (error) {
        // A 429 (or 503) with Retry-After: the whole queue waits as long as the catalog asked,
        // and the task goes back to wait without spending an attempt.
        const wait = retryAfterMsOf(error);
        if (wait === undefined) throw error;
        await catalog.rateLimit(wait);
        throw Worker.RateLimitError();
      }
    }, left(names.catalog)),
    { ...common, concurrency: options.concurrency ?? 16, limiter: limiterFor(options.catalogPerSecond) },
  );
  for (const [queue, worker] of [
    [names.control, control],
    [names.catalog, catalog],
  ] as const) {
    worker.on("failed", (job, error) => options.onFailed?.(queue, job, error));
    worker.on("error", (error) => options.onError(queue, error));
  }
  return {
    control,
    catalog,
    async close(force = false) {
      await Promise.all([control.close(force), catalog.close(force)]);
    },
  };
}

function retryAfterMsOf(error: unknown): number | undefined {
  if (!isCodedError(error)) return undefined;
  const status = error.details?.status;
  const wait = error.details?.retryAfterMs;
  if ((status !== 429 && status !== 503) || typeof wait !== "number" || wait <= 0) return undefined;
  return wait;
}
