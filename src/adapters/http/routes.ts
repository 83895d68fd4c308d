// Health and metrics routes, served next to the Slack endpoint on the receiver's port.

import type { IncomingMessage, ServerResponse } from "node:http";
import { AggregatorRegistry, type Registry } from "prom-client";
import { withDeadline } from "../../util/deadline.js";
import type { FailingSource } from "../evidence/source-watch.js";
import { send } from "./edge.js";
import type { HealthState } from "./health.js";
import { type HealthCheck, SCRAPE_READ_MS, within } from "./metrics/registry.js";

export interface HealthRoutesOptions {
  /**
   * Resolves when Redis answers; readyz reports 503 otherwise. When it resolves with a status
   * ({ ok, topology, primary }) readyz reports that too, and 503 when no primary is reachable.
   */
  pingRedis: () => Promise<unknown>;
  registry: Registry;
  /**
   * The Slack checks (token, channels, delivery) as this process last read them, kept in memory;
   * the redis check is recorded there as readyz reads it.
   */
  health?: HealthState;
  /**
   * Metrics of another process served in the same scrape (`start`'s worker child), as
   * getMetricsAsJSON() gives them: counters and histograms are summed with this process's.
   */
  otherMetrics?: () => Promise<unknown[]>;
  /**
   * Evidence sources failing now: shown under `sources`, never a failing check (a diagnosis
   * without a source still says what it could read).
   */
  failingSources?: () => FailingSource[];
}

/** How long readyz waits for Redis: probes time out after a second, so answer within it. */
export const READY_TIMEOUT_MS = 800;

export function healthRoutes(options: HealthRoutesOptions) {
  const { health } = options;
  return [
    {
      path: "/healthz",
      method: "GET",
      handler: (_req: IncomingMessage, res: ServerResponse) => send(res, 200, '{"ok":true}'),
    },
    {
      path: "/readyz",
      method: "GET",
      handler: (req: IncomingMessage, res: ServerResponse) => {
        // ?check=redis (repeatable) limits the answer's status to those checks: a receiver's
        // probe need not leave its Service because Slack is away (the alert still fires).
        const only = new URL(req.url ?? "/", "http://localhost").searchParams.getAll("check");
        const late = `no answer within ${READY_TIMEOUT_MS} ms`;
        withDeadline(options.pingRedis(), READY_TIMEOUT_MS, late)
          .then(
            (result) => {
              const status = redisStatus(result);
              if (status === undefined) return { ok: true, redis: "ok" };
              const { ok, error, ...topology } = status;
              return { ok, redis: ok ? "ok" : (error ?? "no primary reachable"), ...topology };
            },
            (error: Error) => ({ ok: false, redis: error.message }),
          )
          .then((body) => {
            health?.set("redis", body.ok ? undefined : `Redis: ${body.redis}`);
            const checks: Partial<Record<HealthCheck, string>> = {};
            if (!body.ok) checks.redis = body.redis;
            for (const [check, reason] of health?.reasons() ?? [])
              if (check !== "redis") checks[check] = reason;
            const counted = Object.keys(checks).filter((c) => only.length === 0 || only.includes(c));
            const ok = counted.length === 0;
            const sources = sourcesDetail(options.failingSources?.() ?? []);
            const answer = {
              ...body,
              ok,
              ...(Object.keys(checks).length > 0 ? { failing: checks } : {}),
              ...(sources ? { sources } : {}),
            };
            send(res, ok ? 200 : 503, JSON.stringify(answer));
          });
      },
    },
    {
      path: "/metrics",
      method: "GET",
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        const { otherMetrics } = options;
        const text = otherMetrics
          ? Promise.all([
              options.registry.getMetricsAsJSON(),
              within(SCRAPE_READ_MS, otherMetrics, [] as unknown[]),
            ]).then(([own, other]) => AggregatorRegistry.aggregate([own, other] as object[]).metrics())
          : options.registry.metrics();
        text
          .then((body) => send(res, 200, body, options.registry.contentType))
          .catch((error: Error) => send(res, 500, error.message, "text/plain"));
      },
    },
  ];
}

/** "kind/name" -> why, for each failing source; undefined when none fails. */
function sourcesDetail(failing: readonly FailingSource[]) {
  if (failing.length === 0) return undefined;
  const entries = failing.map((f) => [
    `${f.kind}/${f.source}`,
    { outcome: f.outcome, reason: f.reason, since: new Date(f.sinceMs).toISOString() },
  ]);
  return { failing: Object.fromEntries(entries) };
}

interface RedisStatus {
  ok: boolean;
  error?: string;
  topology?: string;
  describe?: string;
  primary?: string;
}

function redisStatus(result: unknown): RedisStatus | undefined {
  if (typeof result !== "object" || result === null || typeof (result as RedisStatus).ok !== "boolean") {
    return undefined;
  }
  const { ok, error, topology, describe, primary } = result as RedisStatus;
  return { ok, error, topology, describe, primary };
}
