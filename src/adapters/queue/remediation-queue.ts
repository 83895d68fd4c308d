// The remediation queue: applying an approved change, the delayed follow-up checks and reverts.
// Job ids are derived from the incident, the step and the proposal, so a double click, a Slack
// retry or a second replica adds the same job once (BullMQ refuses a duplicate id). Follow-ups
// are delayed jobs in Redis, so they survive a restart of the bot.

import type { ConnectionOptions, Queue } from "bullmq";
import { type RemediationJob, remediationJobId } from "../../core/jobs.js";
import { createQueue, JOB_QUEUE_POLICY } from "./queues.js";

const DEFAULT_REMEDIATION_QUEUE = "remediation";

export interface RemediationQueue {
  enqueue(job: RemediationJob, delayMs?: number): Promise<string>;
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
  const queue = createQueue<RemediationJob>(
    options.name ?? DEFAULT_REMEDIATION_QUEUE,
    JOB_QUEUE_POLICY,
    options,
  );
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
