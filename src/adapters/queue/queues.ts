// The producer side of every BullMQ queue, one shape for all (createQueue), and the diagnosis and
// Slack queues. One prefix with a hash tag keeps every queue key in one Redis Cluster slot; names
// are injectable so each test gets its own queues. Workers are in worker.ts.

import { type ConnectionOptions, type Job, type JobsOptions, Queue } from "bullmq";
import { type DiagnoseJob, diagnoseJobId, type SlackJob, slackJobId } from "../../core/jobs.js";
import { batchCalls } from "../redis/batch-calls.js";

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
  /** First retry delay; doubled on each attempt. */
  backoffMs?: number;
}

/** Diagnoses, Slack jobs and remediation: six attempts, the last 10,000 done jobs kept. */
export const JOB_QUEUE_POLICY: QueuePolicy = { attempts: 6, keepDone: 10_000 };

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

/** What a queue does with its jobs: how often one is tried, how many done ones are kept. */
export interface QueuePolicy {
  attempts: number;
  /** Done jobs kept, up to a day; 0: a job goes as soon as it is done. */
  keepDone: number;
  /** The length of the queue's event stream, when nobody listens to it. */
  eventsMaxLen?: number;
}

/**
 * The one way a queue is made: a failed job is retried up to its policy's attempts with
 * exponential backoff (doubling from `backoffMs`), and kept a week for inspection.
 */
export function createQueue<T>(
  name: string,
  policy: QueuePolicy,
  options: { connection: ConnectionOptions; prefix: string; backoffMs?: number },
): Queue<T> {
  const queue = new Queue<T>(name, {
    connection: options.connection,
    prefix: options.prefix,
    ...(policy.eventsMaxLen !== undefined ? { streams: { events: { maxLen: policy.eventsMaxLen } } } : {}),
    defaultJobOptions: {
      attempts: policy.attempts,
      backoff: { type: "exponential", delay: options.backoffMs ?? 1000 },
      removeOnComplete: policy.keepDone === 0 ? true : { age: 86_400, count: policy.keepDone },
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
  const common = { connection: options.connection, prefix, backoffMs: options.backoffMs };
  const diagnose = createQueue<DiagnoseJob>(names.diagnose, JOB_QUEUE_POLICY, common);
  const slack = createQueue<SlackJob>(names.slack, JOB_QUEUE_POLICY, common);
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

/**
 * Jobs added during one turn of the event loop reach Redis as a single addBulk. Under a burst of
 * slash commands the per-job cost of enqueueing is what stands between one ack and the next;
 * batching keeps that cost flat without delaying any job by more than a tick. 25 a batch: small
 * enough that one flush never holds the event loop long (acks wait behind it).
 */
export function batchedAdd<T>(
  queue: Queue<T>,
): (name: string, data: T, opts?: JobsOptions) => Promise<Job<T>> {
  const add = batchCalls<{ name: string; data: T; opts?: JobsOptions }, Job<T> | undefined>({
    maxBatch: 25,
    // Queue<T>'s addBulk typing ties names to T's generics; the items are exactly what add takes.
    send: async (batch) => (await queue.addBulk(batch as Parameters<Queue<T>["addBulk"]>[0])) as Job<T>[],
  });
  return async (name, data, opts) => {
    const job = await add({ name, data, opts });
    if (!job) throw new Error(`addBulk returned no job for ${name}`);
    return job;
  };
}

function prefixed(queue: string, counts: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [state, n] of Object.entries(counts)) out[`${queue}.${state}`] = n;
  return out;
}
