// Slack over HTTP through Bolt's public Receiver interface: our own server verifies each request
// (verify.ts), parses it as Slack sends it (JSON for events; a form, with interactivity's JSON in
// its `payload` field, for commands and clicks), and hands it on as a ReceiverEvent whose ack
// writes the HTTP answer. The alert webhooks and health routes share the port.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import type { Route } from "../../http/route-server.js";
import { verifySlackSignature } from "./verify.js";

const SLACK_EVENTS_PATH = "/slack/events";

/** Hands one verified event on: to Bolt (`process`, app.processEvent) or to a handler of ours. */
export type EventHandler = (
  event: ReceiverEvent,
  process: (event: ReceiverEvent) => Promise<void>,
) => Promise<void>;

export interface HttpReceiverOptions {
  signingSecret: string;
  routes: readonly Route[];
  handle: EventHandler;
  now?: () => number;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
  /** Larger Slack bodies are refused with 413 (default 1 MiB; Slack's are a few KiB). */
  bodyLimitBytes?: number;
}

/** Slack waits 3 s for an answer; past that an unanswered request is logged (as Bolt does). */
const UNACKED_WARNING_MS = 3001;

export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  private server: Server | undefined;

  constructor(private readonly options: HttpReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  async start(port: number): Promise<Server> {
    const server = createServer((req, res) => this.route(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.server = server;
    return server;
  }

  port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive clients (probes, tests) would otherwise hold the close open.
      server.closeAllConnections();
    });
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    // Slack's path as it always comes needs no URL parse in front of every ack.
    const path =
      req.url === SLACK_EVENTS_PATH ? req.url : new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === SLACK_EVENTS_PATH && req.method === "POST") {
      this.slackRequest(req, res).catch((error: unknown) => {
        this.options.log.error({ err: String(error) }, "slack request failed");
        if (!res.headersSent) answer(res, 500);
      });
      return;
    }
    const route = this.options.routes.find((r) => r.path === path && r.method === req.method);
    if (route) {
      route.handler(req, res);
      return;
    }
    req.resume();
    answer(res, 404, "Not found", "text/plain");
  }

  private async slackRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req, this.options.bodyLimitBytes ?? 1 << 20);
    if (raw === undefined) return answer(res, 413);
    const body = parseBody(raw, String(req.headers["content-type"] ?? ""));
    // Slack's certificate check carries no signature (Bolt answers it the same way).
    if (body?.ssl_check) return answer(res, 200);
    const verdict = verifySlackSignature(
      this.options.signingSecret,
      req.headers,
      raw,
      (this.options.now ?? Date.now)(),
    );
    if (!verdict.ok) {
      this.options.log.warn({ reason: verdict.reason }, "slack request refused");
      return answer(res, 401);
    }
    if (body === undefined) return answer(res, 400);
    if (body.type === "url_verification")
      return answer(res, 200, JSON.stringify({ challenge: body.challenge }));
    const app = this.app;
    if (!app) return answer(res, 503);
    const event = eventFor(req, res, body, this.options.log);
    try {
      await this.options.handle(event, (e) => app.processEvent(e));
    } catch (error) {
      this.options.log.error({ err: String(error) }, "slack event failed");
      if (!res.headersSent) answer(res, 500);
      return;
    }
    // Every listener returned without acknowledging: answer anyway, so Slack shows no error.
    if (!res.headersSent) answer(res, 200);
  }
}

function eventFor(
  req: IncomingMessage,
  res: ServerResponse,
  body: Record<string, unknown>,
  log: HttpReceiverOptions["log"],
): ReceiverEvent {
  let acked = false;
  const late = setTimeout(() => {
    if (!acked) log.warn({}, "a slack request was not acknowledged within 3 seconds");
  }, UNACKED_WARNING_MS);
  late.unref();
  const retryNum = Number(req.headers["x-slack-retry-num"]);
  const retryReason = req.headers["x-slack-retry-reason"];
  return {
    body,
    async ack(response?: unknown) {
      if (acked) return;
      acked = true;
      clearTimeout(late);
      if (response === undefined || response === null || response === "") answer(res, 200);
      else if (typeof response === "string") answer(res, 200, response, undefined);
      else answer(res, 200, JSON.stringify(response));
    },
    ...(Number.isFinite(retryNum) ? { retryNum } : {}),
    ...(typeof retryReason === "string" ? { retryReason } : {}),
  };
}

function answer(
  res: ServerResponse,
  status: number,
  body = "",
  type: string | undefined = "application/json",
): void {
  if (res.headersSent) return;
  res.writeHead(status, body === "" || type === undefined ? {} : { "content-type": type });
  res.end(body);
}

/** The body as text, or undefined past `limit` bytes. Events, not an async iterator: cheaper per request. */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
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
    req.once("end", () => resolve(size > limit ? undefined : Buffer.concat(chunks).toString("utf8")));
    req.once("error", reject);
    // A request cut off before its end (no-op once settled).
    req.once("close", () => reject(new Error("the request was closed before its end")));
  });
}

/** A form (commands; clicks and submissions carry JSON in `payload`) or JSON (events). */
function parseBody(raw: string, contentType: string): Record<string, unknown> | undefined {
  try {
    if (contentType.includes("application/x-www-form-urlencoded")) {
      const form = Object.fromEntries(new URLSearchParams(raw));
      return typeof form.payload === "string" ? (JSON.parse(form.payload) as Record<string, unknown>) : form;
    }
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
