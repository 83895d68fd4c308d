// The remediation queue: applying an approved change, the delayed follow-up checks and reverts.
// Job ids are derived from the incident, the step and the proposal, so a double click, a Slack
// retry or a second replica adds the same job once (BullMQ refuses a duplicate id). Follow-ups
// are delayed jobs in Redis, so they survive a restart of the bot.

import type { ConnectionOptions, Job, Queue } from "bullmq";
import { Worker } from "bullmq";
import { type RemediationJob, RemediationJobSchema, remediationJobId } from "../../core/jobs.js";
import type { CodedError } from "../../errors.js";
import { createQueue, readJob, retryPolicy, workerDefaults } from "./queues.js";

export type { RemediationJob } from "../../core/jobs.js";

const DEFAULT_REMEDIATION_QUEUE = "remediation";

interface RemediationEnqueuer {
  enqueue(job: RemediationJob, delayMs?: number): Promise<string>;
}

export interface RemediationQueue extends RemediationEnqueuer {
  queue: Queue<RemediationJob>;
  close(): Promise<void>;
  obliterate(): Promise<void>;
}

export interface RemediationQueueOptions {
  connection: ConnectionOptions;
  prefix: string;
  name?: string;
  /** First retry delay, doubled on each attempt. */
  backoffMs?: number;
}

export function createRemediationQueue(options: RemediationQueueOptions): RemediationQueue {
  const queue = createQueue<RemediationJob>(options.name ?? DEFAULT_REMEDIATION_QUEUE, {
    connection: options.connection,
    prefix: options.prefix,
    ...(options.backoffMs !== undefined ? { backoffMs: options.backoffMs } : {}),
  });
  return {
    queue,
    async enqueue(job, delayMs = 0) {
      const jobId = remediationJobId(job);
      await queue.add(job.kind, job, { jobId, ...(delayMs > 0 ? { delay: delayMs } : {}) });
      return jobId;
    },
    close: () => queue.close(),
    obliterate: () => queue.obliterate({ force: true }),
  };
}

export interface RemediationWorkerOptions {
  connection: ConnectionOptions;
  prefix: string;
  name?: string;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  onFailed?: (job: Job | undefined, error: Error) => void;
  /** Every worker error (a lost connection, a lock that could not be renewed) is reported here. */
  onError: (queue: string, error: Error) => void;
  /** A job left for a newer release (retryPolicy). */
  onLeft?: (queue: string, job: Job, error: CodedError) => void;
}

/** A thin processor: parse the payload, hand it to the service. */
export function startRemediationWorker(
  options: RemediationWorkerOptions,
  run: (job: RemediationJob, jobId: string) => Promise<void>,
): Worker<RemediationJob> {
  const name = options.name ?? DEFAULT_REMEDIATION_QUEUE;
  const worker = new Worker<RemediationJob>(
    options.name ?? DEFAULT_REMEDIATION_QUEUE,
    retryPolicy(
      async (job: Job<RemediationJob>) => {
        await run(readJob(RemediationJobSchema, job), String(job.id));
      },
      { onLeft: (job, error) => options.onLeft?.(name, job, error) },
    ),
    { ...workerDefaults(options), concurrency: options.concurrency ?? 4 },
  );
  worker.on("failed", (job, error) => options.onFailed?.(job, error));
  worker.on("error", (error) => options.onError(name, error));
  return worker;
}
