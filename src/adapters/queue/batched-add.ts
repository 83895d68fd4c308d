// Jobs added during one turn of the event loop reach Redis as a single addBulk. Under a burst of
// slash commands the per-job cost of enqueueing is what stands between one ack and the next;
// batching keeps that cost flat without delaying any job by more than a tick.

import type { Job, JobsOptions, Queue } from "bullmq";

interface Pending<T> {
  name: string;
  data: T;
  opts?: JobsOptions;
  resolve: (job: Job<T>) => void;
  reject: (error: unknown) => void;
}

export type AddJob<T> = (name: string, data: T, opts?: JobsOptions) => Promise<Job<T>>;

/** Small enough that one flush never holds the event loop long (acks wait behind it). */
const MAX_BATCH = 25;

export function batchedAdd<T>(queue: Queue<T>): AddJob<T> {
  let pending: Pending<T>[] = [];

  const flush = async () => {
    const batch = pending.slice(0, MAX_BATCH);
    pending = pending.slice(MAX_BATCH);
    if (pending.length > 0) setImmediate(flush);
    try {
      // Queue<T>'s addBulk typing ties names to T's generics; the items are exactly what add takes.
      const jobs = (await queue.addBulk(
        batch.map(({ name, data, opts }) => ({ name, data, opts })) as Parameters<Queue<T>["addBulk"]>[0],
      )) as Job<T>[];
      batch.forEach((item, index) => {
        const job = jobs[index];
        if (job) item.resolve(job);
        else item.reject(new Error(`addBulk returned no job for ${item.name}`));
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  };

  return (name, data, opts) =>
    new Promise<Job<T>>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ name, data, opts, resolve, reject });
    });
}
