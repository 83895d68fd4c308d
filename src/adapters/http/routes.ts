// Health and metrics routes, served next to the Slack endpoint on the receiver's port.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";

export interface HealthRoutesOptions {
  /** Resolves when Redis answers; readyz reports 503 otherwise. */
  pingRedis: () => Promise<unknown>;
  registry: Registry;
  readyTimeoutMs?: number;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export function healthRoutes(options: HealthRoutesOptions) {
  const timeoutMs = options.readyTimeoutMs ?? 2000;
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
          .then(() => send(res, 200, "application/json", '{"ok":true,"redis":"ok"}'))
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
