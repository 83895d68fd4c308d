// The bot's one HTTP server: every process that listens (a receiver, a worker's health port)
// serves its routes here, whatever else it does. Slack events (HTTP mode), the alert webhooks,
// health and metrics are routes; Socket Mode only leaves out the Slack route. We run the server
// ourselves: Bolt's own servers neither say which port they bound (PORT=0) nor report a failed
// listen. Bodies are read here too, once, with their size limit.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Route {
  path: string;
  method: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface Edge {
  port: number;
  close(): Promise<void>;
}

/** The largest body a route reads unless it says otherwise (Slack's are a few KiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

export async function serveEdge(routes: readonly Route[], port: number): Promise<Edge> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const route = routes.find((r) => r.path === path && r.method === req.method);
    if (route !== undefined) {
      route.handler(req, res);
      return;
    }
    req.resume();
    send(res, 404, "Not found", "text/plain");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive clients (probes, tests) would otherwise hold the close open.
        server.closeAllConnections();
      }),
  };
}

/**
 * The request's body, or undefined when it is larger than `limit` (the caller answers 413). A
 * declared length over the limit is refused before anything is read.
 */
export async function readBody(
  req: IncomingMessage,
  limit = DEFAULT_BODY_LIMIT,
): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * Answers once (a later answer to the same request is dropped): `body` as `type`, or no body. A
 * string Slack's ack returns goes back with no type (`type` undefined), as Bolt's receiver does.
 */
export function send(
  res: ServerResponse,
  status: number,
  body = "",
  type: string | undefined = "application/json",
): void {
  if (res.headersSent) return;
  res.writeHead(
    status,
    body === "" || type === undefined
      ? {}
      : { "content-type": type, "content-length": Buffer.byteLength(body) },
  );
  res.end(body);
}
