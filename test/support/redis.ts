// Per-test isolation on the shared Redis: a unique namespace for our keys and unique BullMQ
// queue names, and a cleanup that removes exactly those keys. A test project may hand the
// suite another Redis (the Cluster one) through vitest's provide/inject.

import { randomUUID } from "node:crypto";
import { Cluster, type Command } from "ioredis";
import { createRedisClient, type RedisClient } from "../../src/adapters/redis/connection.js";

async function providedUrl(): Promise<string | undefined> {
  // Only inside a vitest worker; benchmarks import this module too.
  if (!process.env.VITEST) return undefined;
  const { inject } = await import("vitest");
  return inject("redisUrl");
}

export const REDIS_URL = (await providedUrl()) ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface TestRedisScope {
  namespace: string;
  queuePrefix: string;
  queueNames: { diagnose: string; slack: string };
  redis: RedisClient;
  cleanup(): Promise<void>;
}

export function testRedisScope(label: string): TestRedisScope {
  const id = `${label}-${randomUUID().slice(0, 8)}`;
  const namespace = `t-${id}`;
  const queuePrefix = `{tq-${id}}`;
  const redis = createRedisClient(REDIS_URL, "commands");
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
export async function deleteKeysMatching(redis: RedisClient, patterns: readonly string[]): Promise<void> {
  // A Cluster spreads keys over its primaries: scan each of them.
  const nodes = redis instanceof Cluster ? redis.nodes("master") : [redis];
  for (const node of nodes) {
    for (const pattern of patterns) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
        cursor = next;
        // One DEL per key: keys of one pattern share a hash tag, but nothing else promises it.
        await Promise.all(keys.map((key) => node.del(key)));
      } while (cursor !== "0");
    }
  }
}

/**
 * Notes the number of keys of every script sent through `redis` (EVALSHA, or EVAL the first time
 * on a connection; the scripts still run on the real Redis or Cluster): how tests see how many
 * calls one batched script carried.
 */
export function scriptKeyCounts(redis: RedisClient): number[] {
  const counts: number[] = [];
  // A command sent before the connection is ready comes through here again when it is.
  const seen = new WeakSet<Command>();
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command: Command, ...rest: unknown[]) => {
    if ((command.name === "evalsha" || command.name === "eval") && !seen.has(command)) {
      seen.add(command);
      counts.push(Number(command.args[1]));
    }
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof redis.sendCommand;
  return counts;
}
