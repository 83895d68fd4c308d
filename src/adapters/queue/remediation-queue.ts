// The remediation queue: applying an approved change, the delayed follow-up checks and reverts.
// Job ids are derived from the incident, the step and the proposal, so a double click, a Slack
// retry or a second replica adds the same job once (BullMQ refuses a duplicate id). Follow-ups
// are delayed jobs in Redis, so they survive a restart of the bot.

import { type ConnectionOptions, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { z } from "zod";
import { STEP_IDS } from "../../core/ids.js";
import { isCodedError } from "../../errors.js";
import { idPart } from "./jobs.js";

export const RemediationJobSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("apply"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    attempt: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal("check"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    proposalId: z.string(),
    checkIndex: z.number().int().positive(),
  }),
  z.object({
    kind: z.literal("revert"),
    incidentId: z.string(),
    stepId: z.enum(STEP_IDS),
    attempt: z.number().int().positive(),
  }),
]);

export type RemediationJob = z.infer<typeof RemediationJobSchema>;

export const DEFAULT_REMEDIATION_QUEUE = "remediation";

export function remediationJobId(job: RemediationJob): string {
  const base = `${job.kind}-${idPart(job.incidentId)}-${job.stepId}`;
  switch (job.kind) {
    case "apply":
      return `${base}-${idPart(job.proposalId)}-${job.attempt}`;
    case "check":
      return `${base}-${idPart(job.proposalId)}-${job.checkIndex}`;
    case "revert":
      return `${base}-${job.attempt}`;
  }
}

export interface RemediationEnqueuer {
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
  const queue = new Queue<RemediationJob>(options.name ?? DEFAULT_REMEDIATION_QUEUE, {
    connection: options.connection,
    prefix: options.prefix,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: "exponential", delay: options.backoffMs ?? 1000 },
      removeOnComplete: { age: 7 * 86_400, count: 10_000 },
      removeOnFail: { age: 30 * 86_400 },
    },
  });
  // A lost connection is reported by the add() that needed it; the event itself adds nothing.
  queue.on("error", () => {});
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
}

/** A thin processor: parse the payload, hand it to the service. */
export function startRemediationWorker(
  options: RemediationWorkerOptions,
  run: (job: RemediationJob, jobId: string) => Promise<void>,
): Worker<RemediationJob> {
  const worker = new Worker<RemediationJob>(
    options.name ?? DEFAULT_REMEDIATION_QUEUE,
    async (job) => {
      try {
        await run(RemediationJobSchema.parse(job.data), String(job.id));
      } catch (error) {
        // A problem that will not fix itself fails at once; anything else is retried.
        if (isCodedError(error) && !error.retryable) throw new UnrecoverableError(error.message);
        throw error;
      }
    },
    {
      connection: options.connection,
      prefix: options.prefix,
      concurrency: options.concurrency ?? 4,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 2,
    },
  );
  worker.on("failed", (job, error) => options.onFailed?.(job, error));
  worker.on("error", () => {});
  return worker;
}
