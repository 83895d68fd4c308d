// The replay guard's "first time seen?" (SET NX EX), sent as one script per turn of the event
// loop (see batch-calls.ts) for a burst of clicks, submissions and events. A script rather than a pipeline:
// ioredis builds every pipeline with a copy of each script the queues define, which costs more
// than the checks. Every key shares the store's hash tag, so the script runs on one Cluster slot.

import { batchCalls } from "./batch-calls.js";
import type { RedisClient } from "./connection.js";

export type FirstTime = (scope: string, key: string, ttlSeconds: number) => Promise<boolean>;

/** Bounds one flush's write and the time its replies take to hand out. */
const MAX_BATCH = 100;

/** KEYS: the memory keys; ARGV: their expiries in seconds. Returns 1 per key set now, 0 per key seen. */
const SET_EACH_NX = `
local seen = {}
for i, key in ipairs(KEYS) do
  seen[i] = redis.call("SET", key, "1", "EX", ARGV[i], "NX") and 1 or 0
end
return seen`;

export function batchedFirstTime(
  redis: RedisClient,
  seenKey: (scope: string, key: string) => string,
): FirstTime {
  const check = batchCalls<{ key: string; ttlSeconds: number }, boolean>({
    maxBatch: MAX_BATCH,
    send: async (batch) => {
      const replies = (await redis.eval(
        SET_EACH_NX,
        batch.length,
        ...batch.map((item) => item.key),
        ...batch.map((item) => item.ttlSeconds),
      )) as number[];
      return replies.map((reply) => reply === 1);
    },
  });
  return (scope, key, ttlSeconds) => check({ key: seenKey(scope, key), ttlSeconds });
}
