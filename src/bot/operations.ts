// What an operator needs from a process beside its work: the Slack token checked at start, the
// readiness checks kept current (adapters/http/health.ts), a worker's /healthz, /readyz and
// /metrics on METRICS_PORT (the worker Deployment's probes and scrape), and the retention pass
// that removes incidents closed longer ago than retention.resolvedDays.

import { serveEdge } from "../adapters/http/edge.js";
import { type HealthMonitor, SLACK_TOKEN_ERRORS, startHealthMonitor } from "../adapters/http/health.js";
import { within } from "../adapters/http/metrics/registry.js";
import { healthRoutes } from "../adapters/http/routes.js";
import { type RetentionRunner, startRetention } from "../adapters/store/retention.js";
import type { Part } from "./part.js";
import { type Shared, slackClient } from "./shared.js";

/** A worker's health and metrics port (the `worker` command: METRICS_PORT). */
export function workerOpsServerPart(shared: Shared, port: number): Part & { port?: number } {
  const { metrics, log } = shared;
  let close: (() => Promise<void>) | undefined;
  const part: Part & { port?: number } = {
    name: "worker health and metrics",
    async start() {
      const server = await serveEdge(
        healthRoutes({
          pingRedis: shared.pingRedis,
          registry: metrics.registry,
          health: shared.health,
          failingSources: () => shared.sourceWatch.failing(),
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

/** How long the start-up auth.test waits for Slack before going on without its answer. */
const START_AUTH_TIMEOUT_MS = 5_000;

/**
 * Slack's auth.test before anything starts: a token Slack refuses stops the process (explained as
 * configuration by the CLI, exit 2). Slack not answering is not the token's fault: the process
 * starts, and readiness reports what the poster and the periodic check find.
 */
export async function checkSlackTokenAtStart(shared: Pick<Shared, "config" | "log">): Promise<void> {
  const client = slackClient(shared.config, shared.log, [], {
    oneAttempt: true,
    timeoutMs: START_AUTH_TIMEOUT_MS,
  });
  try {
    await client.auth.test();
  } catch (error) {
    const code = (error as { data?: { error?: unknown } }).data?.error;
    if (typeof code === "string" && SLACK_TOKEN_ERRORS.has(code)) throw error;
    shared.log.warn(
      { err: (error as Error).message },
      "Slack did not answer auth.test at start; starting anyway (readiness reports what follows)",
    );
  }
}

/** Readiness kept current in memory: Redis, the shared Slack checks, the outbox's oldest message. */
export function healthMonitorPart(shared: Shared): Part {
  const { config, options, log } = shared;
  let monitor: HealthMonitor | undefined;
  return {
    name: "health monitor",
    start() {
      const client = slackClient(config, log, shared.addresses, { oneAttempt: true, timeoutMs: 5_000 });
      monitor = startHealthMonitor({
        state: shared.health,
        board: shared.slackHealth,
        oldestOwedMs: async () => (await shared.outbox.backlog()).oldestMs,
        delayedAfterMs: config.bot.slackDelivery.delayedAfterSeconds * 1000,
        authTest: () => client.auth.test(),
        checkRedis: async () => {
          const status = await within<{ ok: boolean; error?: string }>(READY_WAIT_MS, shared.pingRedis, {
            ok: false,
            error: `no answer within ${READY_WAIT_MS} ms`,
          });
          return status.ok ? undefined : `Redis: ${status.error ?? "no primary reachable"}`;
        },
        now: shared.wallClock,
        ...(options.health?.checkEveryMs !== undefined ? { checkEveryMs: options.health.checkEveryMs } : {}),
        // The start-up check was the first auth.test.
        firstAuthAtMs: shared.wallClock(),
        authEveryMs: options.health?.authEveryMs ?? 300_000,
        onError: (error) => log.debug({ err: error.message }, "readiness round failed"),
      });
    },
    stop() {
      monitor?.stop();
    },
  };
}

const READY_WAIT_MS = 800;
