// What an operator needs from a worker process beside its work: /healthz, /readyz and /metrics on
// METRICS_PORT (the worker Deployment's probes and scrape), and the retention pass that removes
// incidents closed longer ago than retention.resolvedDays.

import { serveRoutes } from "../adapters/http/route-server.js";
import { healthRoutes } from "../adapters/http/routes.js";
import { checkPrimary } from "../adapters/redis/connection.js";
import { type RetentionRunner, startRetention } from "../adapters/store/retention.js";
import type { Part } from "./part.js";
import type { Shared } from "./shared.js";

/** A worker's health and metrics port (the `worker` command: METRICS_PORT). */
export function workerOpsServerPart(shared: Shared, port: number): Part & { port?: number } {
  const { connections, config, store, metrics, log } = shared;
  let close: (() => Promise<void>) | undefined;
  const part: Part & { port?: number } = {
    name: "worker health and metrics",
    async start() {
      const server = await serveRoutes(
        healthRoutes({
          pingRedis: () => checkPrimary(connections.redis, config.redis, store.keys.sequence()),
          registry: metrics.registry,
        }),
        port,
      );
      part.port = server.port;
      close = server.close;
      log.info({ port: server.port, role: "worker" }, "worker health and metrics listening");
    },
    async stop() {
      await close?.();
    },
  };
  return part;
}

/** Hourly: closed incidents past retention.resolvedDays removed (adapters/store/retention.ts). */
export function retentionPart(shared: Shared): Part {
  let runner: RetentionRunner | undefined;
  return {
    name: "retention",
    start() {
      runner = startRetention({
        redis: shared.connections.redis,
        keys: shared.store.keys,
        now: shared.now,
        resolvedDays: shared.config.bot.retention.resolvedDays,
        onPurged: (count) => shared.log.info({ count }, "closed incidents past their retention removed"),
        onError: (error) => shared.log.warn({ err: error.message }, "retention pass failed"),
      });
    },
    stop() {
      runner?.stop();
    },
  };
}
