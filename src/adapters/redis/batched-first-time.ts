// The replay guard's "first time seen?" (SET NX EX), sent as one script per turn of the event
// loop (see batch-calls.ts) for a burst of clicks, submissions and events. A script rather than a pipeline:
// ioredis builds every pipeline with a copy of each script the queues define, which costs more
// than the checks. Every key shares the store's hash tag, so the script runs on one Cluster slot.

import { batchCalls } from "./batch-calls.js";
import type { RedisClient } from "./connection.js";
import { runScript } from "./scripts.js";

export type FirstTime = (scope: string, key: string, ttlSeconds: number) => Promise<boolean>;

/** Bounds one flush's write and the time its replies take to hand out. */
const MAX_BATCH = 100;

export function batchedFirstTime(
  redis: RedisClient,
  seenKey: (scope: string, key: string) => string,
): FirstTime {
  const check = batchCalls<{ key: string; ttlSeconds: number }, boolean>({
    maxBatch: MAX_BATCH,
    send: async (batch) => {
      const replies = (await runScript(
        redis,
        "first-time-each",
        batch.map((item) => item.key),
        batch.map((item) => item.ttlSeconds),
      )) as number[];
      return replies.map((reply) => reply === 1);
    },
  });
  return (scope, key, ttlSeconds) => check({ key: seenKey(scope, key), ttlSeconds });
}
