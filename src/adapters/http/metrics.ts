// Prometheus metrics, one registry per bot instance (two instances in one test process must not
// share counters).

import { Counter, Gauge, Histogram, Registry } from "prom-client";

export interface BotMetrics {
  registry: Registry;
  jobOutcomes: Counter<"queue" | "outcome">;
  diagnosisSeconds: Histogram<"kind">;
  slackErrors: Counter<"method">;
  alertsReceived: Counter<"source" | "outcome">;
  webhookRejected: Counter<"source" | "reason">;
}

export function createMetrics(queueDepth?: () => Promise<Record<string, number>>): BotMetrics {
  const registry = new Registry();
  const jobOutcomes = new Counter({
    name: "iceberg_bot_jobs_total",
    help: "Jobs finished, by queue and outcome (completed, failed).",
    labelNames: ["queue", "outcome"] as const,
    registers: [registry],
  });
  const diagnosisSeconds = new Histogram({
    name: "iceberg_bot_diagnosis_seconds",
    help: "Time to diagnose a table, evidence gathering included.",
    labelNames: ["kind"] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  const slackErrors = new Counter({
    name: "iceberg_bot_slack_api_errors_total",
    help: "Slack Web API calls that failed after the client's own retries.",
    labelNames: ["method"] as const,
    registers: [registry],
  });
  const alertsReceived = new Counter({
    name: "iceberg_bot_alerts_total",
    help: "Alerts received by the webhooks, by sender and outcome (accepted, ignored).",
    labelNames: ["source", "outcome"] as const,
    registers: [registry],
  });
  const webhookRejected = new Counter({
    name: "iceberg_bot_webhook_rejected_total",
    help: "Alert webhook requests refused, by sender and reason (unauthorized, too_large, invalid_json, invalid_body, unavailable).",
    labelNames: ["source", "reason"] as const,
    registers: [registry],
  });
  new Gauge({
    name: "iceberg_bot_queue_jobs",
    help: "Jobs in each queue by state (waiting, active, delayed, failed).",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      if (!queueDepth) return;
      this.reset();
      const depth = await queueDepth().catch(() => ({}) as Record<string, number>);
      for (const [key, value] of Object.entries(depth)) {
        const at = key.lastIndexOf(".");
        this.set({ queue: key.slice(0, at), state: key.slice(at + 1) }, value);
      }
    },
  });
  return { registry, jobOutcomes, diagnosisSeconds, slackErrors, alertsReceived, webhookRejected };
}
