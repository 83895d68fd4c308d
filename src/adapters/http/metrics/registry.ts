// Prometheus metrics, one registry per bot instance (two instances in one test process must not
// share counters).

import { type Aggregator, Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { withDeadline } from "../../../util/deadline.js";
import { WEBHOOK_REJECT_REASONS } from "../webhook.js";

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
  try {
    return await withDeadline(read(), ms, "late");
  } catch {
    return fallback;
  }
}

/**
 * `read` within SCRAPE_READ_MS, once per scrape however many gauges ask: a registry collects its
 * metrics at once, so the gauges of one scrape share the read.
 */
export function perScrape<T>(read: () => Promise<T>, fallback: T): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= within(SCRAPE_READ_MS, read, fallback).finally(() =>
      setImmediate(() => {
        pending = undefined;
      }),
    );
    return pending;
  };
}

interface Spec<L extends string> {
  name: string;
  help: string;
  labelNames?: readonly L[];
  /** How `start` merges its worker process's series with its own (default: sum). */
  aggregator?: Aggregator;
}

/** A gauge in `registry`, set by `collect` at each scrape when given. */
export function gauge<L extends string>(
  registry: Registry,
  spec: Spec<L>,
  collect?: (gauge: Gauge<L>) => void | Promise<void>,
): Gauge<L> {
  return new Gauge<L>({
    aggregator: "sum",
    ...spec,
    registers: [registry],
    ...(collect && {
      collect(this: Gauge<L>) {
        return collect(this);
      },
    }),
  });
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

/** Sets the queue gauge from the depth read at scrape time, "queue.state" -> jobs. */
function showQueueDepth(queueDepth: () => Promise<Record<string, number>>) {
  return async (g: Gauge<"queue" | "state">) => {
    g.reset();
    const depth = await within(SCRAPE_READ_MS, queueDepth, {} as Record<string, number>);
    for (const [key, value] of Object.entries(depth)) {
      const at = key.lastIndexOf(".");
      g.set({ queue: key.slice(0, at), state: key.slice(at + 1) }, value);
    }
  };
}

/** The metrics the bot's parts count into, in the order /metrics shows them. */
function countedMetrics(registry: Registry, queueDepth: MetricSources["queueDepth"]) {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    jobOutcomes: counter(
      "iceberg_bot_jobs_total",
      "Jobs taken by a worker, by queue and outcome (completed, failed, left: of a shape or on a record a newer release wrote, moved back to delayed for it).",
      ["queue", "outcome"],
    ),
    diagnosisSeconds: new Histogram({
      name: "iceberg_bot_diagnosis_seconds",
      help: "Time to diagnose a table, evidence gathering included.",
      labelNames: ["kind"] as const,
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    }),
    slackErrors: counter(
      "iceberg_bot_slack_api_errors_total",
      "Slack Web API calls that failed after the client's own retries.",
      ["method"],
    ),
    alertsReceived: counter(
      "iceberg_bot_alerts_total",
      "Alerts received by the webhooks, by sender and outcome (accepted, ignored).",
      ["source", "outcome"],
    ),
    webhookRejected: counter(
      "iceberg_bot_webhook_rejected_total",
      "Alert webhook requests refused, by sender and reason (unauthorized, too_large, invalid_json, invalid_body, unavailable).",
      ["source", "reason"],
    ),
    queueJobs: gauge(
      registry,
      {
        name: "iceberg_bot_queue_jobs",
        help: "Jobs in each queue by state (waiting, active, delayed, failed).",
        labelNames: ["queue", "state"],
      },
      queueDepth && showQueueDepth(queueDepth),
    ),
    /** Messages owed to Slack that were given up on, by reason. */
    slackDropped: counter(
      "iceberg_bot_slack_messages_dropped_total",
      "Messages owed to Slack that were given up on, by reason (expired, rejected, invalid).",
      ["reason"],
    ),
    /** Evidence requests by source kind, source name and outcome. */
    sourceRequests: counter(
      "iceberg_bot_source_requests_total",
      "Requests to evidence sources, by kind (catalog, flink, connect, prometheus), source name and outcome (ok, refused, error, unreachable, timeout).",
      ["kind", "source", "outcome"],
    ),
    // `start` serves its worker process's series with its own: the latest and the worst win.
    /** When a source last answered, in Unix seconds (no series until it has). */
    sourceLastSuccess: gauge(registry, {
      name: "iceberg_bot_source_last_success_timestamp_seconds",
      help: "When each evidence source last answered the bot, in Unix seconds (absent until it has).",
      labelNames: ["kind", "source"],
      aggregator: "max",
    }),
    /** 1 while a source's latest request failed, else 0. */
    sourceFailing: gauge(registry, {
      name: "iceberg_bot_source_failing",
      help: "1 while an evidence source's latest answer was a failure (refused, error, unreachable, timeout), else 0.",
      labelNames: ["kind", "source"],
      aggregator: "max",
    }),
    /** Times `start` restarted its worker process. */
    workerRestarts: counter(
      "iceberg_bot_worker_restarts_total",
      "Times `start` restarted its worker process after it died or stopped answering.",
    ),
  };
}

/** Shows the known label values at 0 (see KnownLabels); safe to call again with more. */
function know(metrics: ReturnType<typeof countedMetrics>, knownSources: Set<string>, labels: KnownLabels) {
  for (const queue of labels.queues ?? [])
    for (const outcome of JOB_OUTCOMES) metrics.jobOutcomes.inc({ queue, outcome }, 0);
  for (const kind of labels.diagnosisKinds ?? []) metrics.diagnosisSeconds.zero({ kind });
  for (const source of labels.webhookSources ?? []) {
    for (const outcome of ["accepted", "ignored", "truncated_by_sender"])
      metrics.alertsReceived.inc({ source, outcome }, 0);
    for (const reason of WEBHOOK_REJECT_REASONS) metrics.webhookRejected.inc({ source, reason }, 0);
  }
  for (const { kind, source } of labels.sources ?? []) {
    const key = `${kind}\u0000${source}`;
    if (knownSources.has(key)) continue;
    knownSources.add(key);
    for (const outcome of SOURCE_OUTCOMES) metrics.sourceRequests.inc({ kind, source, outcome }, 0);
    metrics.sourceFailing.set({ kind, source }, 0);
  }
}

export type BotMetrics = ReturnType<typeof createMetrics>;

export function createMetrics(sources: MetricSources = {}) {
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
  gauge(registry, {
    name: "iceberg_bot_build_info",
    help: "Always 1, labelled with the release (package.json version, as `iceberg-bot --version` prints it) and the Node.js version.",
    labelNames: ["version", "node"],
    // `start` merges its worker process's series: one process tree, one release.
    aggregator: "max",
  }).set({ version: version ?? "unknown", node: process.versions.node }, 1);
  const metrics = countedMetrics(registry, queueDepth);
  // Every reason shows from the start (0), so a rate over them has data before the first drop.
  for (const reason of ["expired", "rejected", "invalid"]) metrics.slackDropped.inc({ reason }, 0);
  const knownSources = new Set<string>();
  // One read of the backlogs serves both gauges of a scrape.
  const readBacklogs = backlogs && perScrape(backlogs, [] as Backlog[]);
  const backlogGauge = (name: string, help: string, value: (b: Backlog) => number) =>
    gauge(
      registry,
      { name, help, labelNames: ["backlog"] },
      readBacklogs &&
        (async (g) => {
          g.reset();
          for (const b of await readBacklogs()) g.set({ backlog: b.backlog }, value(b));
        }),
    );
  backlogGauge(
    "iceberg_bot_backlog_items",
    "Items owed in each queue (waiting jobs, and delayed jobs once due), inbox and the Slack outbox (messages owed).",
    (b) => b.items,
  );
  backlogGauge(
    "iceberg_bot_backlog_oldest_seconds",
    "Age of the oldest item owed in each queue, inbox and the Slack outbox (0 when empty).",
    (b) => b.oldestSeconds ?? 0,
  );
  gauge(
    registry,
    {
      name: "iceberg_bot_health_failing",
      help: "1 while a readiness check fails (redis, slack_auth, slack_channel, slack_delivery), else 0.",
      labelNames: ["check"],
    },
    failingChecks &&
      ((g) => {
        const failing = failingChecks();
        for (const check of HEALTH_CHECKS) g.set({ check }, failing.has(check) ? 1 : 0);
      }),
  );
  return { registry, ...metrics, know: (labels: KnownLabels) => know(metrics, knownSources, labels) };
}
