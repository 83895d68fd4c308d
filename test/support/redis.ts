// Per-test isolation on the shared Redis: a unique namespace for our keys and unique BullMQ
// queue names, and a cleanup that removes exactly those keys.

import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestRedisScope {
  namespace: string;
  queuePrefix: string;
  queueNames: { diagnose: string; slack: string };
  redis: Redis;
  cleanup(): Promise<void>;
}

export function testRedisScope(label: string): TestRedisScope {
  const id = `${label}-${randomUUID().slice(0, 8)}`;
  const namespace = `t-${id}`;
  const queuePrefix = `{tq-${id}}`;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  return {
    namespace,
    queuePrefix,
    queueNames: { diagnose: `diagnose-${id}`, slack: `slack-${id}` },
    redis,
    async cleanup() {
      await deleteKeysMatching(redis, [`{${namespace}}:*`, `${queuePrefix}:*`]);
      await redis.quit();
    },
  };
}

/** Deletes every key matching the glob patterns, a SCAN page at a time (no KEYS on a shared Redis). */
export async function deleteKeysMatching(redis: Redis, patterns: readonly string[]): Promise<void> {
  for (const pattern of patterns) {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== "0");
  }
}
