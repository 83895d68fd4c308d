// Slack over HTTP through Bolt's public Receiver interface: a route of the bot's one server
// (adapters/http/edge.ts) verifies each request (verify.ts), parses it as Slack sends it (JSON for
// events; a form, with interactivity's JSON in its `payload` field, for commands and clicks), and
// hands it on as a ReceiverEvent whose ack writes the HTTP answer.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { App, Receiver, ReceiverEvent } from "@slack/bolt";
import { send as answer, type Route, readBody } from "../../http/edge.js";
import { verifySlackSignature } from "./verify.js";

const SLACK_EVENTS_PATH = "/slack/events";

/** Hands one verified event on: to Bolt (`process`, app.processEvent) or to a handler of ours. */
export type EventHandler = (
  event: ReceiverEvent,
  process: (event: ReceiverEvent) => Promise<void>,
) => Promise<void>;

export interface HttpReceiverOptions {
  signingSecret: string;
  handle: EventHandler;
  now: () => number;
  log: { warn(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

/** Slack waits 3 s for an answer; past that an unanswered request is logged (as Bolt does). */
const UNACKED_WARNING_MS = 3001;

export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;

  constructor(private readonly options: HttpReceiverOptions) {}

  init(app: App): void {
    this.app = app;
  }

  // The edge owns the port: there is no server here to start or stop.
  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  /** POST /slack/events, served by the edge. */
  readonly route: Route = {
    path: SLACK_EVENTS_PATH,
    method: "POST",
    handler: (req, res) => {
      this.slackRequest(req, res).catch((error: unknown) => {
        this.options.log.error({ err: String(error) }, "slack request failed");
        if (!res.headersSent) answer(res, 500);
      });
    },
  };

  private async slackRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const bytes = await readBody(req);
    if (bytes === undefined) return answer(res, 413);
    const raw = bytes.toString("utf8");
    const body = parseBody(raw, String(req.headers["content-type"] ?? ""));
    // Slack's certificate check carries no signature (Bolt answers it the same way).
    if (body?.ssl_check) return answer(res, 200);
    const verdict = verifySlackSignature(this.options.signingSecret, req.headers, raw, this.options.now());
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
