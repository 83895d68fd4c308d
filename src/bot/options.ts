// What startBot takes and gives back: the role, the seams tests and benchmarks use, and the
// handle of a running bot.

import type { Worker } from "bullmq";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { FlinkDiscoveryOptions } from "../adapters/evidence/kubernetes/discovery.js";
import type { SourceWatch } from "../adapters/evidence/source-watch.js";
import type { BotQueues, QueueNames } from "../adapters/queue/queues.js";
import type { RemediationQueue } from "../adapters/queue/remediation-queue.js";
import type { SweepQueues } from "../adapters/queue/sweep-queue.js";
import type { RedisClient } from "../adapters/redis/connection.js";
import type { BotApp } from "../adapters/slack/app.js";
import type { BackoffSettings, PosterDeps } from "../adapters/slack/outbox/poster.js";
import type { IncidentStore } from "../adapters/store/incident-store.js";
import type { SweepStore } from "../adapters/store/sweep-store.js";
import type { DiagnoseJob, SlackJob } from "../core/jobs.js";
import type { AuditFn, DiagnoseFn } from "../services/incident/deps.js";
import type { EvidencePorts, SlackOutboxPort } from "../services/ports.js";
import type { RemediationDeps } from "../services/remediation/deps.js";
import type { Remediation } from "../services/remediation/remediation.js";
import type { SweepService } from "../services/sweep/service.js";
import type { WorkerSupervisor, WorkerSupervisorOptions } from "../worker-supervisor.js";

export type BotRole = "start" | "serve" | "worker";

export interface BotOptions {
  role?: BotRole;
  /**
   * How the outbox poster talks to Slack: its request timeout, its backoff between attempts, and
   * how long it holds an incident's queue (a dead poster's is taken over once that runs out).
   */
  slackDelivery?: { timeoutMs?: number; backoff?: Partial<BackoffSettings>; leaseMs?: number };
  /**
   * How often readiness reads the Slack checks and the outbox (default 2 s) and calls Slack's
   * auth.test (default 5 min).
   */
  health?: { checkEveryMs?: number; authEveryMs?: number };
  /**
   * The outbox poster of a process that runs the workers, beyond its delivery settings: left
   * stopped until `Bot.outboxPoster.start()` (a process that takes over delivery later), and
   * listeners for a post Slack accepted (before it is recorded), a message given up on and a
   * failed Slack call (the metrics count those too). Functions: they stay in this process.
   */
  outboxPoster?: {
    startStopped?: boolean;
    afterSend?: PosterDeps["afterSend"];
    onDropped?: PosterDeps["onDropped"];
    onSlackError?: PosterDeps["onSlackError"];
  };
  /**
   * What the services' Slack requests pass through on their way into the outbox (default:
   * straight in): a simulator or a test sees, or keeps, requests such as status card edits here.
   */
  slackPort?: (outbox: SlackOutboxPort) => SlackOutboxPort;
  /** False: this process takes no remediation jobs (another process does). Default true. */
  remediationWorker?: boolean;
  /** Redis key namespace and BullMQ prefix/names: tests and benchmarks isolate themselves with these. */
  namespace?: string;
  queuePrefix?: string;
  queueNames?: Partial<QueueNames>;
  port?: number;
  /** Where a worker serves /healthz, /readyz and /metrics (the `worker` command: METRICS_PORT). */
  metricsPort?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  backoffMs?: number;
  concurrency?: { diagnose?: number; slack?: number };
  ports?: EvidencePorts;
  /** Kubernetes discovery's connection and clock (tests); built from the config otherwise. */
  flinkDiscovery?: Pick<FlinkDiscoveryOptions, "connection" | "readFile" | "now">;
  diagnose?: DiagnoseFn;
  audit?: AuditFn;
  log?: Logger;
  /** The clock incidents and walks read (default Date.now; the simulator drives its own). */
  now?: () => number;
  /** Real time, for delivery, leases and schedules (default Date.now). */
  wallClock?: () => number;
  webhookBodyLimitBytes?: number;
  /** Where the playbooks are read from (default playbooks/ at the package root). */
  playbooksDir?: string;
  /** Catalog tasks per worker. */
  sweepConcurrency?: number;
  /** Test seams for the autopilot (kill -9 drills crash a worker right after its approval). */
  autopilot?: { afterApprove?: () => Promise<void> };
  /** Follow-up pacing and test seams for guided remediation. */
  remediation?: Partial<
    Pick<RemediationDeps, "followUpIntervalMs" | "afterApply" | "onResolution"> & {
      /** How long a proposal waits for the diagnosis message it answers (default 15 s). */
      diagnosisWaitMs?: number;
    }
  >;
  /**
   * With role "start": run the workers in a supervised child process instead of this one (the
   * `start` command always does). The child gets the config and the plain-data options above;
   * injected functions (diagnose, audit, ports, render, now) stay in this process.
   */
  workerProcess?:
    | boolean
    | Pick<
        WorkerSupervisorOptions,
        | "restartDelayMs"
        | "maxRestartDelayMs"
        | "healthyAfterMs"
        | "stopTimeoutMs"
        | "niceness"
        | "onEvent"
        | "heartbeatTimeoutMs"
      >;
}

export interface Bot {
  /** The HTTP port (serve/start), or undefined for a worker. */
  port?: number;
  /** A worker's health and metrics port, when it serves one. */
  metricsPort?: number;
  /** This process's metrics (a `start` worker child hands them to its parent's /metrics). */
  metricsRegistry: Registry;
  /** How every evidence source has been answering this process. */
  sources: SourceWatch;
  app?: BotApp;
  queues: BotQueues;
  /** Apply, revert and follow-up jobs of guided remediation. */
  remediationQueue: RemediationQueue;
  workers?: BotWorkers;
  /** The Slack outbox's poster of a process that runs the workers. */
  outboxPoster?: { start(): void };
  /** The supervised worker child of `start`, when the workers run there. */
  workerProcess?: WorkerSupervisor;
  store: IncidentStore;
  redis: RedisClient;
  log: Logger;
  remediation: Remediation;
  sweep: { queues: SweepQueues; store: SweepStore; runtime?: { service: SweepService } };
  /**
   * True when the bot owes nothing now (adapters/http/metrics/backlogs.ts, isQuiet) and no request's
   * listeners are still at work in this process's receiver.
   */
  quiet(): Promise<boolean>;
  stop(): Promise<void>;
}

/** The diagnosis and Slack queue workers of a process that runs them. */
export interface BotWorkers {
  diagnose: Worker<DiagnoseJob>;
  slack: Worker<SlackJob>;
  /** Stops taking jobs and waits for the running ones (force: does not wait). */
  close(force?: boolean): Promise<void>;
}

/** A `start` whose workers run in a supervised child process (this process then runs none). */
export function workersInChild(options: Pick<BotOptions, "role" | "workerProcess">): boolean {
  const role = options.role ?? "start";
  return role === "start" && options.workerProcess !== undefined && options.workerProcess !== false;
}

/**
 * Whether this process runs the workers (diagnosis, sweep): `worker`, or `start` without a child.
 * Only such a process reads evidence through Kubernetes discovery.
 */
export function runsWorkers(options: Pick<BotOptions, "role" | "workerProcess">): boolean {
  const role = options.role ?? "start";
  return role === "worker" || (role === "start" && !workersInChild(options));
}
