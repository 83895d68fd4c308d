// One loopback HTTP server per simulated service: records requests, answers the /__sim admin
// routes, applies injected faults, then hands the request to the service's router.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FaultSpec, SimFaultInjector, SimService } from "../faults.js";

export interface SimRequest {
  service: SimService;
  method: string;
  pathname: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface SimResponse {
  status: number;
  /** Already-serialised body; absent = no body. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type SimHandler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

export interface RecordedRequest {
  service: SimService;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  body: string;
}

export interface AdminHooks {
  injectFault(spec: FaultSpec): string;
  clearFaults(): void;
  advance(ms: number): void;
  stateJson(): string;
}

export interface ServiceServerOptions {
  service: SimService;
  /** The named cluster or catalog it serves (faults can aim at it); absent for the default server. */
  name?: string;
  host: string;
  port: number;
  handler: SimHandler;
  faults: SimFaultInjector;
  requests: RecordedRequest[];
  admin: AdminHooks;
  /** Runs before each service request (brings the world up to the clock). */
  beforeRequest(): void;
  /** Body for an injected status fault without an explicit body. */
  errorBody(status: number): string;
}

export interface ServiceServer {
  url: string;
  close(): Promise<void>;
}

export function json(status: number, value: unknown, headers?: Record<string, string>): SimResponse {
  return { status, body: JSON.stringify(value), contentType: "application/json", headers };
}

const HTML_ERROR_PAGE =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function headerRecord(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const LARGE_BODY_CHARS = 1 << 20;
let lastLargeBody: { text: string; bytes: Buffer } | undefined;

/**
 * Large bodies (table metadata with a long history) are encoded once and the bytes reused while
 * the same text is served again, so the simulator does not dominate what a benchmark measures.
 */
function encoded(body: string): Buffer | string {
  if (body.length < LARGE_BODY_CHARS) return body;
  if (lastLargeBody?.text !== body) lastLargeBody = { text: body, bytes: Buffer.from(body, "utf8") };
  return lastLargeBody.bytes;
}

function send(res: ServerResponse, r: SimResponse, bodyOverride?: string): void {
  const body = bodyOverride ?? r.body;
  const headers: Record<string, string | number> = { ...(r.headers ?? {}) };
  const payload = body === undefined ? undefined : encoded(body);
  if (payload !== undefined) {
    headers["content-type"] = r.contentType ?? "application/json";
    headers["content-length"] = Buffer.byteLength(payload);
  }
  res.writeHead(r.status, headers);
  res.end(payload);
}

function adminRoute(req: SimRequest, admin: AdminHooks): SimResponse | undefined {
  const route = `${req.method} ${req.pathname}`;
  try {
    switch (route) {
      case "POST /__sim/faults": {
        const spec = JSON.parse(req.body || "{}") as FaultSpec;
        return json(200, { id: admin.injectFault(spec) });
      }
      case "DELETE /__sim/faults":
        admin.clearFaults();
        return { status: 204 };
      case "POST /__sim/advance": {
        const { ms } = JSON.parse(req.body || "{}") as { ms?: unknown };
        if (typeof ms !== "number") return json(400, { error: 'send {"ms": <milliseconds>}' });
        admin.advance(ms);
        return { status: 200, body: admin.stateJson(), contentType: "application/json" };
      }
      case "GET /__sim/state":
        return { status: 200, body: admin.stateJson(), contentType: "application/json" };
      default:
        return req.pathname.startsWith("/__sim/")
          ? json(404, { error: `no admin route ${route}` })
          : undefined;
    }
  } catch (err) {
    return json(400, { error: (err as Error).message });
  }
}

export async function startServiceServer(opts: ServiceServerOptions): Promise<ServiceServer> {
  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, json(500, { error: `simulator failure: ${(err as Error).message}` }));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sim.invalid");
    const simReq: SimRequest = {
      service: opts.service,
      method: (req.method ?? "GET").toUpperCase(),
      pathname: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: await readBody(req),
    };
    const admin = adminRoute(simReq, opts.admin);
    if (admin) return send(res, admin);

    opts.requests.push({
      service: opts.service,
      method: simReq.method,
      path: simReq.pathname,
      query: queryRecord(simReq.query),
      headers: headerRecord(req.headers),
      body: simReq.body,
    });
    const fault = opts.faults.take(opts.service, simReq.method, simReq.pathname, opts.name);
    if (fault?.kind === "hang") return; // answered never; close() drops the connection
    if (fault?.kind === "reset") {
      req.socket.destroy();
      return;
    }
    if (fault?.kind === "latency") await new Promise((r) => setTimeout(r, fault.ms ?? 1_000));
    if (fault?.kind === "status") {
      const status = fault.status ?? 500;
      const body = fault.body === undefined ? opts.errorBody(status) : JSON.stringify(fault.body);
      return send(res, { status, body, contentType: "application/json" });
    }
    if (fault?.kind === "non-json") {
      return send(res, { status: 200, body: HTML_ERROR_PAGE, contentType: "text/html" });
    }
    opts.beforeRequest();
    const response = await opts.handler(simReq);
    if (fault?.kind === "truncate" && response.body !== undefined) {
      return send(res, response, response.body.slice(0, Math.floor(response.body.length / 2)));
    }
    send(res, simReq.method === "HEAD" ? { ...response, body: undefined } : response);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
