// The alert webhook routes (Alertmanager, Grafana): bearer token (constant time), body cap, JSON
// and schema validation. Each answers with a status and a short JSON reason, hands valid alerts
// on, and counts what it took and refused.

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import type { Counter } from "prom-client";
import type { z } from "zod";
import type { AlertEvent } from "../../core/incident/model.js";
import { withDeadline } from "../../util/deadline.js";
import { AlertmanagerBodySchema, toAlertEvent } from "../intake/alertmanager.js";
import { GrafanaBodySchema } from "../intake/grafana.js";
import { DEFAULT_BODY_LIMIT, type Route, readBody, send } from "./edge.js";
/**
 * How long a notification may take to be stored before the sender is told to retry (503): a
 * Redis that hangs must not hang the sender, which retries a 5xx but not a request it gave up on
 * after its own timeout (the shipped Alertmanager route waits 10 s).
 */
export const WEBHOOK_DEADLINE_MS = 5_000;

export const WEBHOOK_KINDS = ["alertmanager", "grafana"] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** Why a request is refused; the rejected-webhooks metric shows each from the start. */
export const WEBHOOK_REJECT_REASONS = [
  "unauthorized",
  "too_large",
  "invalid_json",
  "invalid_body",
  "unavailable",
] as const;
export type RejectReason = (typeof WEBHOOK_REJECT_REASONS)[number];

export class WebhookRejection extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly reason: RejectReason = status === 401
      ? "unauthorized"
      : status === 413
        ? "too_large"
        : "invalid_body",
  ) {
    super(message);
  }
}

/** Compares digests so neither the length nor the content of the token leaks through timing. */
export function tokenMatches(presented: string | undefined, expected: string | undefined): boolean {
  if (!presented || !expected) return false;
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Every accepted token is compared, so the time taken does not tell which one matched. */
function anyTokenMatches(presented: string | undefined, accepted: readonly string[]): boolean {
  let matched = false;
  for (const token of accepted) if (tokenMatches(presented, token)) matched = true;
  return matched;
}

export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

// Alertmanager never retries a 4xx, so the answer says how to make the next notification fit.
function tooLarge(limit: number): string {
  return `Body is larger than ${limit} bytes; set max_alerts in the sender's webhook config (see README).`;
}

/** Validates a parsed body and returns normalised alerts; the 400 message names the first bad field. */
export function parseWebhookBody(kind: WebhookKind, body: unknown): AlertEvent[] {
  const schema: z.ZodType<{ alerts: Parameters<typeof toAlertEvent>[0][] }> =
    kind === "alertmanager" ? AlertmanagerBodySchema : GrafanaBodySchema;
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join(".") : "(body)";
    throw new WebhookRejection(400, `Invalid ${kind} webhook body: field ${field}: ${issue.message}.`);
  }
  return result.data.alerts.map((alert) => toAlertEvent(alert, kind));
}

export interface AlertWebhookOptions {
  /**
   * The tokens a sender may present: one, or the new and the old while senders move to the new
   * one. When none is set every request is refused: an open endpoint would let anyone open incidents.
   */
  tokens?: readonly string[];
  bodyLimitBytes?: number;
  accept: (alerts: AlertEvent[]) => Promise<{ accepted: number; ignored: number }>;
  metrics: { alertsReceived: Counter<"source" | "outcome">; webhookRejected: Counter<"source" | "reason"> };
  log: Pick<Logger, "error" | "warn">;
}

/** One sender's route: every request answered, what it took and refused counted. */
function webhookHandler(kind: WebhookKind, options: AlertWebhookOptions) {
  const { metrics, log } = options;
  const limit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  return (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      try {
        if (!anyTokenMatches(bearerToken(req.headers.authorization), options.tokens ?? [])) {
          req.resume();
          res.setHeader("www-authenticate", 'Bearer realm="iceberg-bot"');
          throw new WebhookRejection(
            401,
            "Missing or wrong bearer token: send Authorization: Bearer <ALERT_WEBHOOK_TOKEN>.",
          );
        }
        const raw = await readBody(req, limit);
        if (raw === undefined) throw new WebhookRejection(413, tooLarge(limit));
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString("utf8"));
        } catch {
          throw new WebhookRejection(400, "Body is not valid JSON.", "invalid_json");
        }
        const alerts = parseWebhookBody(kind, parsed);
        // Alertmanager's max_alerts: the alerts it left out are counted so the operator sees them.
        const truncated = (parsed as { truncatedAlerts?: unknown }).truncatedAlerts;
        if (typeof truncated === "number" && truncated > 0) {
          metrics.alertsReceived.inc({ source: kind, outcome: "truncated_by_sender" }, truncated);
          log.warn({ route: kind, truncatedAlerts: truncated }, "the sender left alerts out (max_alerts)");
        }
        // Counted once stored, even after the deadline answered the sender.
        const stored = options.accept(alerts).then(({ accepted, ignored }) => {
          metrics.alertsReceived.inc({ source: kind, outcome: "accepted" }, accepted);
          metrics.alertsReceived.inc({ source: kind, outcome: "ignored" }, ignored);
          return { accepted, ignored };
        });
        const late = `the alerts were not stored within ${WEBHOOK_DEADLINE_MS} ms`;
        send(
          res,
          202,
          JSON.stringify({ ok: true, ...(await withDeadline(stored, WEBHOOK_DEADLINE_MS, late)) }),
        );
      } catch (error) {
        if (error instanceof WebhookRejection) {
          metrics.webhookRejected.inc({ source: kind, reason: error.reason });
          // The rest of an oversized body is not read; closing the connection stops the sender.
          if (error.status === 413) res.setHeader("connection", "close");
          send(res, error.status, JSON.stringify({ ok: false, error: error.message }));
          return;
        }
        metrics.webhookRejected.inc({ source: kind, reason: "unavailable" });
        log.error({ err: error, route: kind }, "alert intake failed");
        const retry = "The bot could not record the alerts; the sender should retry.";
        send(res, 503, JSON.stringify({ ok: false, error: retry }));
      }
    })();
  };
}

/** POST /webhooks/alertmanager and /webhooks/grafana. */
export function alertWebhookRoutes(options: AlertWebhookOptions): Route[] {
  return WEBHOOK_KINDS.map((kind) => ({
    path: `/webhooks/${kind}`,
    method: "POST",
    handler: webhookHandler(kind, options),
  }));
}
