// The bot's one HTTP server: every process that listens (a receiver, a worker's health port)
// serves its routes here, whatever else it does. Slack events (HTTP mode), the alert webhooks,
// health and metrics are routes; Socket Mode only leaves out the Slack route. We run the server
// ourselves: Bolt's own servers neither say which port they bound (PORT=0) nor report a failed
// listen. Bodies are read here too, once, with their size limit.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Route {
  /** The exact path, or a pattern of paths (the dev page's shared files). */
  path: string | RegExp;
  method: string;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface Edge {
  port: number;
  close(): Promise<void>;
}

/** The largest body a route reads unless it says otherwise (Slack's are a few KiB). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Listens on `port` of `host` (default: every interface). */
export async function serveEdge(routes: readonly Route[], port: number, host?: string): Promise<Edge> {
  const server: Server = createServer((req, res) => {
    // A route's path as it usually comes (Slack's, a probe's) needs no URL parse in front of every ack.
    let route = routes.find((r) => r.path === req.url && r.method === req.method);
    if (route === undefined) {
      const path = new URL(req.url ?? "/", "http://localhost").pathname;
      route = routes.find(
        (r) => r.method === req.method && (typeof r.path === "string" ? r.path === path : r.path.test(path)),
      );
    }
    if (route !== undefined) {
      route.handler(req, res);
      return;
    }
    req.resume();
    send(res, 404, "Not found", "text/plain");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
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
 * declared length over the limit is refused before anything is read. Events, not an async
 * iterator: cheaper per request.
 */
export function readBody(req: IncomingMessage, limit = DEFAULT_BODY_LIMIT): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.once("error", reject);
    // A request cut off before its end (no-op once settled).
    req.once("close", () => reject(new Error("the request was closed before its end")));
  });
}

/**
 * Answers once (a later answer to the same request is dropped): `body` as `type`, or no body. A
 * string Slack's ack returns goes back with no type (`type` undefined), as Bolt's receiver does.
 * `headers` are added to the answer (the dev page's no-store, for one).
 */
export function send(
  res: ServerResponse,
  status: number,
  body = "",
  type: string | undefined = "application/json",
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res.writeHead(
    status,
    body === "" || type === undefined
      ? headers
      : { ...headers, "content-type": type, "content-length": Buffer.byteLength(body) },
  );
  res.end(body);
}
