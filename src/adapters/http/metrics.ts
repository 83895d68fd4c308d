// Prometheus metrics, one registry per bot instance (two instances in one test process must not
// share counters).

import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { WEBHOOK_REJECT_REASONS } from "./webhook.js";

/** One backlog: what waits in a queue, an inbox or the Slack outbox, and for how long. */
export interface Backlog {
  backlog: string;
  items: number;
  /** Age of the oldest item in seconds; absent when the backlog is empty or ages are not kept. */
  oldestSeconds?: number;
}

/** The checks /readyz runs, each failing or not (see health.ts). */
const HEALTH_CHECKS = ["redis", "slack_auth", "slack_channel", "slack_delivery", "worker"] as const;
export type HealthCheck = (typeof HEALTH_CHECKS)[number];

/**
 * How long a scrape waits for what it reads from Redis: /metrics answers within a second whatever
 * Redis does, without the Redis-read series when Redis is slow or away.
 */
export const SCRAPE_READ_MS = 500;

/** `read()`'s result, or `fallback` when it fails or takes longer than `ms`. */
export async function within<T>(ms: number, read: () => Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      read(),
      new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(fallback), ms);
      }),
    ]);
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}

/** What each evidence request came to (adapters/evidence/source-watch.ts classifies them). */
const SOURCE_OUTCOMES = ["ok", "refused", "error", "unreachable", "timeout"] as const;
export type SourceOutcome = (typeof SOURCE_OUTCOMES)[number];

/** What became of a job a worker took: done, failed, or left for a newer release (moved back to delayed). */
export const JOB_OUTCOMES = ["completed", "failed", "left"] as const;

/**
 * The label values known at start: each counter and histogram shows them at 0 from the first
 * scrape, so increase() sees the first event and dashboards have data after a restart.
 */
interface KnownLabels {
  /** Queue names whose job outcomes this process counts. */
  queues?: readonly string[];
  /** Diagnosis job kinds. */
  diagnosisKinds?: readonly string[];
  /** Webhook senders (alertmanager, grafana). */
  webhookSources?: readonly string[];
  /** Evidence sources configured: kind and name. */
  sources?: readonly { kind: string; source: string }[];
}

export interface MetricSources {
  /** This release's version (package.json), shown by iceberg_bot_build_info. */
  version?: string;
  /** Jobs by "queue.state" (waiting, active, delayed, failed). */
  queueDepth?: () => Promise<Record<string, number>>;
  /** Every queue, inbox and outbox with what it owes. */
  backlogs?: () => Promise<Backlog[]>;
  /** The checks failing now (read from memory: never waits on Redis). */
  failingChecks?: () => ReadonlySet<HealthCheck>;
}

export interface BotMetrics {
  registry: Registry;
  /** Messages owed to Slack that were given up on, by reason. */
  slackDropped: Counter<"reason">;
  jobOutcomes: Counter<"queue" | "outcome">;
  diagnosisSeconds: Histogram<"kind">;
  slackErrors: Counter<"method">;
  alertsReceived: Counter<"source" | "outcome">;
  webhookRejected: Counter<"source" | "reason">;
  /** Evidence requests by source kind, source name and outcome. */
  sourceRequests: Counter<"kind" | "source" | "outcome">;
  /** When a source last answered, in Unix seconds (no series until it has). */
  sourceLastSuccess: Gauge<"kind" | "source">;
  /** 1 while a source's latest request failed, else 0. */
  sourceFailing: Gauge<"kind" | "source">;
  /** Times `start` restarted its worker process. */
  workerRestarts: Counter;
  /** Shows the known label values at 0 (see KnownLabels); safe to call again with more. */
  know(labels: KnownLabels): void;
}

export function createMetrics(sources: MetricSources = {}): BotMetrics {
  const { queueDepth, backlogs, failingChecks, version } = sources;
  const registry = new Registry();
  // Process and Node.js runtime metrics (memory, CPU, event loop lag, GC, handles).
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters (promtool and Prometheus's naming rules refuse them); the same
  // counts are in nodejs_active_handles, nodejs_active_requests and nodejs_active_resources.
  for (const name of [
    "nodejs_active_handles_total",
    "nodejs_active_requests_total",
    "nodejs_active_resources_total",
  ])
    registry.removeSingleMetric(name);
  // Which release answers: during a rolling update or after a rollback, count by version.
  new Gauge({
    name: "iceberg_bot_build_info",
    help: "Always 1, labelled with the release (package.json version, as `iceberg-bot --version` prints it) and the Node.js version.",
    labelNames: ["version", "node"] as const,
    registers: [registry],
    // `start` merges its worker process's series: one process tree, one release.
    aggregator: "max",
  }).set({ version: version ?? "unknown", node: process.versions.node }, 1);
  const jobOutcomes = new Counter({
    name: "iceberg_bot_jobs_total",
    help: "Jobs taken by a worker, by queue and outcome (completed, failed, left: of a shape or on a record a newer release wrote, moved back to delayed for it).",
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
      const depth = await within(SCRAPE_READ_MS, queueDepth, {} as Record<string, number>);
      for (const [key, value] of Object.entries(depth)) {
        const at = key.lastIndexOf(".");
        this.set({ queue: key.slice(0, at), state: key.slice(at + 1) }, value);
      }
    },
  });
  const slackDropped = new Counter({
    name: "iceberg_bot_slack_messages_dropped_total",
    help: "Messages owed to Slack that were given up on, by reason (expired, rejected, invalid).",
    labelNames: ["reason"] as const,
    registers: [registry],
  });
  // Every reason shows from the start (0), so a rate over them has data before the first drop.
  for (const reason of ["expired", "rejected", "invalid"]) slackDropped.inc({ reason }, 0);
  const sourceRequests = new Counter({
    name: "iceberg_bot_source_requests_total",
    help: "Requests to evidence sources, by kind (catalog, flink, connect, prometheus), source name and outcome (ok, refused, error, unreachable, timeout).",
    labelNames: ["kind", "source", "outcome"] as const,
    registers: [registry],
  });
  // `start` serves its worker process's series with its own: the latest and the worst win.
  const sourceLastSuccess = new Gauge({
    name: "iceberg_bot_source_last_success_timestamp_seconds",
    help: "When each evidence source last answered the bot, in Unix seconds (absent until it has).",
    labelNames: ["kind", "source"] as const,
    registers: [registry],
    aggregator: "max",
  });
  const sourceFailing = new Gauge({
    name: "iceberg_bot_source_failing",
    help: "1 while an evidence source's latest answer was a failure (refused, error, unreachable, timeout), else 0.",
    labelNames: ["kind", "source"] as const,
    registers: [registry],
    aggregator: "max",
  });
  const workerRestarts = new Counter({
    name: "iceberg_bot_worker_restarts_total",
    help: "Times `start` restarted its worker process after it died or stopped answering.",
    registers: [registry],
  });
  const knownSources = new Set<string>();
  const know = (labels: KnownLabels) => {
    for (const queue of labels.queues ?? [])
      for (const outcome of JOB_OUTCOMES) jobOutcomes.inc({ queue, outcome }, 0);
    for (const kind of labels.diagnosisKinds ?? []) diagnosisSeconds.zero({ kind });
    for (const source of labels.webhookSources ?? []) {
      for (const outcome of ["accepted", "ignored", "truncated_by_sender"])
        alertsReceived.inc({ source, outcome }, 0);
      for (const reason of WEBHOOK_REJECT_REASONS) webhookRejected.inc({ source, reason }, 0);
    }
    for (const { kind, source } of labels.sources ?? []) {
      const key = `${kind}\u0000${source}`;
      if (knownSources.has(key)) continue;
      knownSources.add(key);
      for (const outcome of SOURCE_OUTCOMES) sourceRequests.inc({ kind, source, outcome }, 0);
      sourceFailing.set({ kind, source }, 0);
    }
  };
  // One read of the backlogs serves both gauges of a scrape.
  let pendingBacklogs: Promise<Backlog[]> | undefined;
  const readBacklogs = () => {
    pendingBacklogs ??= (async () => {
      try {
        return backlogs ? await within(SCRAPE_READ_MS, backlogs, []) : [];
      } finally {
        setImmediate(() => {
          pendingBacklogs = undefined;
        });
      }
    })();
    return pendingBacklogs;
  };
  new Gauge({
    name: "iceberg_bot_backlog_items",
    help: "Items owed in each queue (waiting jobs, and delayed jobs once due), inbox and the Slack outbox (messages owed).",
    labelNames: ["backlog"] as const,
    registers: [registry],
    async collect() {
      if (!backlogs) return;
      this.reset();
      for (const b of await readBacklogs()) this.set({ backlog: b.backlog }, b.items);
    },
  });
  new Gauge({
    name: "iceberg_bot_backlog_oldest_seconds",
    help: "Age of the oldest item owed in each queue, inbox and the Slack outbox (0 when empty).",
    labelNames: ["backlog"] as const,
    registers: [registry],
    async collect() {
      if (!backlogs) return;
      this.reset();
      for (const b of await readBacklogs()) this.set({ backlog: b.backlog }, b.oldestSeconds ?? 0);
    },
  });
  new Gauge({
    name: "iceberg_bot_health_failing",
    help: "1 while a readiness check fails (redis, slack_auth, slack_channel, slack_delivery), else 0.",
    labelNames: ["check"] as const,
    registers: [registry],
    collect() {
      if (!failingChecks) return;
      const failing = failingChecks();
      for (const check of HEALTH_CHECKS) this.set({ check }, failing.has(check) ? 1 : 0);
    },
  });
  return {
    registry,
    slackDropped,
    jobOutcomes,
    diagnosisSeconds,
    slackErrors,
    alertsReceived,
    webhookRejected,
    sourceRequests,
    sourceLastSuccess,
    sourceFailing,
    workerRestarts,
    know,
  };
}
