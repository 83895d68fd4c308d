// The replay guard's "first time seen?" (SET NX EX), sent as one script per turn of the event
// loop. A burst of slash commands arrives in a few socket reads; one write per check showed in
// the receiver's profile as its largest cost beyond Bolt's own. A script rather than a pipeline:
// ioredis builds every pipeline with a copy of each script the queues define, which costs more
// than the checks. Every key shares the store's hash tag, so the script runs on one Cluster slot.

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
  let pending: Pending[] = [];

  const flush = async () => {
    const batch = pending.slice(0, MAX_BATCH);
    pending = pending.slice(MAX_BATCH);
    if (pending.length > 0) setImmediate(flush);
    try {
      const replies = (await redis.eval(
        SET_EACH_NX,
        batch.length,
        ...batch.map((item) => item.key),
        ...batch.map((item) => item.ttlSeconds),
      )) as number[];
      batch.forEach((item, index) => {
        item.resolve(replies[index] === 1);
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
