// Health and metrics routes, served next to the Slack endpoint on the receiver's port.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";

export interface HealthRoutesOptions {
  /**
   * Resolves when Redis answers; readyz reports 503 otherwise. When it resolves with a status
   * ({ ok, topology, primary }) readyz reports that too, and 503 when no primary is reachable.
   */
  pingRedis: () => Promise<unknown>;
  registry: Registry;
  readyTimeoutMs?: number;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export function healthRoutes(options: HealthRoutesOptions) {
  // Probes time out after a second or more: answer within it whatever Redis does.
  const timeoutMs = options.readyTimeoutMs ?? 800;
  return [
    {
      path: "/healthz",
      method: "GET",
      handler: (_req: IncomingMessage, res: ServerResponse) =>
        send(res, 200, "application/json", '{"ok":true}'),
    },
    {
      path: "/readyz",
      method: "GET",
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        });
        Promise.race([options.pingRedis(), timeout])
          .then((result) => {
            const status = redisStatus(result);
            if (status === undefined) return send(res, 200, "application/json", '{"ok":true,"redis":"ok"}');
            const { ok, error, ...topology } = status;
            const body = { ok, redis: ok ? "ok" : (error ?? "no primary reachable"), ...topology };
            send(res, ok ? 200 : 503, "application/json", JSON.stringify(body));
          })
          .catch((error: Error) =>
            send(res, 503, "application/json", JSON.stringify({ ok: false, redis: error.message })),
          )
          .finally(() => clearTimeout(timer));
      },
    },
    {
      path: "/metrics",
      method: "GET",
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        options.registry
          .metrics()
          .then((text) => send(res, 200, options.registry.contentType, text))
          .catch((error: Error) => send(res, 500, "text/plain", error.message));
      },
    },
  ];
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
