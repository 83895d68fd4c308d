// The replay guard's "first time seen?" (SET NX EX), sent as one pipeline per turn of the event
// loop. A burst of slash commands arrives in a few socket reads; one write per check showed in
// the receiver's profile as its largest cost beyond Bolt's own, and each request waited behind the
// others' writes. Every key shares the store's hash tag, so a pipeline stays on one Cluster slot.

import type { RedisClient } from "./connection.js";

interface Pending {
  key: string;
  ttlSeconds: number;
  resolve: (first: boolean) => void;
  reject: (error: unknown) => void;
}

export type FirstTime = (scope: string, key: string, ttlSeconds: number) => Promise<boolean>;

/** Bounds one flush's write and the time its replies take to hand out. */
const MAX_BATCH = 100;

export function batchedFirstTime(
  redis: RedisClient,
  seenKey: (scope: string, key: string) => string,
): FirstTime {
  let pending: Pending[] = [];

  const flush = async () => {
    const batch = pending.slice(0, MAX_BATCH);
    pending = pending.slice(MAX_BATCH);
    if (pending.length > 0) setImmediate(flush);
    try {
      const pipeline = redis.pipeline();
      for (const item of batch) pipeline.set(item.key, "1", "EX", item.ttlSeconds, "NX");
      const results = (await pipeline.exec()) ?? [];
      batch.forEach((item, index) => {
        const [error, reply] = results[index] ?? [new Error("no reply in the pipeline"), null];
        if (error) item.reject(error);
        else item.resolve(reply === "OK");
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  };

  return (scope, key, ttlSeconds) =>
    new Promise<boolean>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush);
      pending.push({ key: seenKey(scope, key), ttlSeconds, resolve, reject });
    });
}
