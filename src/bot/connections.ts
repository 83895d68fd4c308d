// The Redis connections of one process: commands (stores, outboxes, queue producers) on one
// client, BullMQ workers on a blocking one, and one more blocking client per reader that blocks
// on its own (the command inbox). A lost connection is logged once per retry period, whichever
// connection notices (connection-errors.ts).

import type { Logger } from "pino";
import { connectionErrorReporter, redisRetryStrategy } from "../adapters/queue/connection-errors.js";
import { createRedisClient, type RedisClient } from "../adapters/redis/connection.js";
import type { Config } from "../config.js";
import type { Part } from "./part.js";

export interface Connections extends Part {
  redis: RedisClient;
  /** For BullMQ workers and the sweep's queues. */
  blocking: RedisClient;
  /** A further blocking connection, closed with the others. */
  blockingFor(name: string): RedisClient;
  /** The reporter every worker and queue error goes through. */
  errors: ReturnType<typeof connectionErrorReporter>;
}

export function openConnections(config: Config, log: Logger): Connections {
  const errors = connectionErrorReporter(log);
  const open = (kind: "commands" | "blocking", connectionName: string, label: string) =>
    errors.watch(
      createRedisClient(config.redis, kind, { connectionName, retryStrategy: redisRetryStrategy }),
      label,
    );
  const all = [open("commands", "iceberg-bot", "redis"), open("blocking", "iceberg-bot-workers", "queues")];
  const [redis, blocking] = all as [RedisClient, RedisClient];
  return {
    name: "connections",
    redis,
    blocking,
    errors,
    blockingFor(name) {
      const connection = open("blocking", `iceberg-bot-${name}`, name);
      all.push(connection);
      return connection;
    },
    async stop() {
      await Promise.all(all.map((connection) => closeRedis(connection)));
    },
  };
}

/** quit() waits for Redis to answer, which never comes while it is away: then just disconnect. */
async function closeRedis(connection: RedisClient, waitMs = 1000): Promise<void> {
  if (connection.status === "ready") {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      connection.quit().catch(() => {}),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }
  connection.disconnect();
}
