// Alertmanager webhook v4 body (and Grafana's, which is the same body plus its own fields).
// Only what the bot reads is required; unknown fields pass through untouched.

import { createHash } from "node:crypto";
import { z } from "zod";
import type { AlertEvent } from "../../core/incident/model.js";

const Labels = z.record(z.string(), z.string());

export const AlertSchema = z.object({
  status: z.enum(["firing", "resolved"]),
  labels: Labels,
  annotations: Labels.default({}),
  startsAt: z.string().min(1),
  endsAt: z.string().optional(),
  generatorURL: z.string().optional(),
  fingerprint: z.string().optional(),
});

export const AlertmanagerBodySchema = z.object({
  version: z.literal("4"),
  status: z.enum(["firing", "resolved"]),
  receiver: z.string().optional(),
  groupKey: z.string().optional(),
  truncatedAlerts: z.number().int().nonnegative().optional(),
  groupLabels: Labels.optional(),
  commonLabels: Labels.optional(),
  commonAnnotations: Labels.optional(),
  externalURL: z.string().optional(),
  // No count limit: a notification is never refused for its number of alerts (Alertmanager does
  // not retry a 4xx); the body cap bounds it, and intake takes the alerts in batches.
  alerts: z.array(AlertSchema),
});

export type WireAlert = z.infer<typeof AlertSchema>;

/** Alertmanager writes 0001-01-01 for "not ended"; that and unparsable times become undefined. */
function parseTime(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

function labelFingerprint(labels: Record<string, string>): string {
  const canonical = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(",");
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

export function toAlertEvent(alert: WireAlert, source: AlertEvent["source"]): AlertEvent {
  return {
    source,
    status: alert.status,
    alertName: alert.labels.alertname ?? "unnamed alert",
    labels: alert.labels,
    summary: alert.annotations.summary ?? alert.annotations.description,
    startsAt: parseTime(alert.startsAt) ?? 0,
    endsAt: parseTime(alert.endsAt),
    fingerprint: alert.fingerprint || labelFingerprint(alert.labels),
  };
}
