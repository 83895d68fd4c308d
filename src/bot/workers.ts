// The worker parts of a process that runs the workers (`worker`, or `start` without a worker
// child): the BullMQ workers (diagnoses, the evidence modal, remediation), the Slack outbox's
// poster, the command inbox's reader, and the scheduler that keeps the alert intake's promises.

import { SlackDelays } from "../adapters/http/health.js";
import { parseInboxEntry } from "../adapters/queue/command-inbox.js";
import { type DrainLoop, startDrainLoop } from "../adapters/queue/drain-loop.js";
import { startInboxMover } from "../adapters/queue/inbox-mover.js";
import { startWorker, type WorkerSettings } from "../adapters/queue/worker.js";
import { OutboxPoster } from "../adapters/slack/outbox/poster.js";
import { runSlackJob } from "../adapters/slack/slack-jobs.js";
import { slackTimelinePoster } from "../adapters/slack/upload.js";
import { SlackViews } from "../adapters/slack/views.js";
import { commandRateCounter } from "../adapters/store/window-counters.js";
import { DiagnoseJobSchema, RemediationJobSchema, SlackJobSchema } from "../core/jobs.js";
import { drainDeferredAlerts } from "../services/alerts.js";
import { runInboxCommand } from "../services/commands.js";
import type { AuditFn, DiagnoseFn } from "../services/incident/deps.js";
import { runDiagnoseJob } from "../services/incident/diagnosis.js";
import { keepIntakePromises } from "../services/intake-promises.js";
import { superviseWorker, type WorkerChildOptions, type WorkerSupervisor } from "../worker-supervisor.js";
import type { BotWorkers } from "./options.js";
import type { Part } from "./part.js";
import { type Shared, slackClient } from "./shared.js";
import { storySources } from "./story.js";

/** The hooks and lock settings every BullMQ worker of a process shares. */
export function workerSettings(shared: Shared): WorkerSettings {
  const { options, metrics, log, connections } = shared;
  return {
    connection: connections.blocking,
    prefix: shared.queues.prefix,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
    onError: (queue, error) => connections.errors.report(`worker ${queue}`, error),
    onFailed: (queue, job, error) => {
      metrics.jobOutcomes.inc({ queue, outcome: "failed" });
      log.warn({ queue, job: job?.id, attempt: job?.attemptsMade, err: error.message }, "job failed");
    },
    onLeft: shared.jobLeft,
  };
}

/** Diagnoses, the evidence modal and remediation on BullMQ. */
export function queueWorkersPart(shared: Shared): Part & { workers: BotWorkers } {
  const { options, metrics, log, now } = shared;
  const settings = workerSettings(shared);
  const diagnosis = {
    ...shared.incidents,
    ports: shared.ports,
    diagnose: options.diagnose ?? loadDiagnose(shared),
    audit: options.audit ?? loadAudit,
    sourceTimeoutMs: shared.config.sourceTimeoutMs,
    remediation: shared.remediation,
  };
  const views = { client: shared.client, store: shared.store, now, log };
  const counted = {
    ...settings,
    onCompleted: (queue: string) => metrics.jobOutcomes.inc({ queue, outcome: "completed" }),
  };
  const { names } = shared.queues;
  const concurrency = { diagnose: shared.config.bot.workers.diagnoses, slack: 4, ...options.concurrency };
  const diagnose = startWorker(
    names.diagnose,
    DiagnoseJobSchema,
    async (job) => {
      const started = now();
      await runDiagnoseJob(diagnosis, job);
      metrics.diagnosisSeconds.observe({ kind: job.kind }, (now() - started) / 1000);
    },
    { concurrency: concurrency.diagnose ?? 8 },
    counted,
  );
  const slack = startWorker(
    names.slack,
    SlackJobSchema,
    (job) => runSlackJob({ ...views, onSlackError: (method) => metrics.slackErrors.inc({ method }) }, job),
    { concurrency: concurrency.slack ?? 4 },
    counted,
  );
  const remediation =
    options.remediationWorker === false
      ? undefined
      : startWorker(
          shared.remediationQueue.queue.name,
          RemediationJobSchema,
          (job) => shared.remediation.runJob(job),
          { concurrency: 4 },
          settings,
        );
  const workers: BotWorkers = {
    diagnose,
    slack,
    async close(force = false) {
      await Promise.all([diagnose.close(force), slack.close(force)]);
    },
  };
  return {
    name: "queue workers",
    workers,
    async stop() {
      await workers.close();
      await remediation?.close();
      log.info({ role: options.role }, "workers stopped");
    },
  };
}

// Loaded on first use: a serve-only process never needs the evidence stack.
function loadDiagnose(shared: Shared): DiagnoseFn {
  return async (ports, request, clock) =>
    (await import("../services/diagnose-table.js")).diagnoseTable(ports, request, clock, {
      playbooks: shared.playbooks.playbooks,
      ...(request.history ? { history: request.history } : {}),
    });
}
/** How often the keeper looks for intake promises a dead receiver left. */
const INTAKE_KEEPER_EVERY_MS = 5_000;

const loadAudit: AuditFn = async (ports, request, clock) =>
  (await import("../services/audit-table.js")).auditTable(ports, request, clock);

/** The one sender of the Slack outbox's entries. */
export function outboxPosterPart(shared: Shared): Part & { poster: OutboxPoster } {
  const { options, store, now, log, metrics } = shared;
  const delivery = options.slackDelivery ?? {};
  const hooks = options.outboxPoster ?? {};
  // One attempt per request: the poster retries with its own backoff and looks before re-posting.
  const client = slackClient(shared.config, log, shared.addresses, {
    oneAttempt: true,
    ...(delivery.timeoutMs !== undefined ? { timeoutMs: delivery.timeoutMs } : {}),
  });
  const delays = new SlackDelays(shared.connections.redis, (id) => store.keys.slackDelay(id));
  // The card, App Home and /iceberg status are rendered from the incident's story, read here.
  const story = storySources(shared);
  const poster = new OutboxPoster({
    outbox: shared.outbox,
    slack: client,
    store,
    views: new SlackViews({
      client,
      store,
      now,
      story,
      history: shared.incidents.history,
      delays,
      sweeps: shared.sweepStore,
      recurringDays: shared.config.bot.retention.resolvedDays,
      autopilot: () => shared.autopilot.homeLines(),
      postmortem: async (incidentId) => {
        const { draftPostmortem } = await import("../services/history/postmortem.js");
        return (await draftPostmortem({ history: shared.incidents.history, store, ...story }, incidentId))
          ?.postmortem;
      },
    }),
    charts: slackTimelinePoster(client),
    onSlackError: (method) => {
      metrics.slackErrors.inc({ method });
      hooks.onSlackError?.(method);
    },
    onDropped: (reason) => {
      metrics.slackDropped.inc({ reason });
      hooks.onDropped?.(reason);
    },
    ...(hooks.afterSend ? { afterSend: hooks.afterSend } : {}),
    health: shared.slackHealth,
    late: {
      afterMs: shared.config.bot.slackDelivery.delayedAfterSeconds * 1000,
      record: (incidentId, delayMs) => delays.record(incidentId, delayMs),
    },
    now: shared.wallClock,
    log,
    confirmDurable: shared.confirmDurable,
    ...(delivery.backoff ? { backoff: delivery.backoff } : {}),
    ...(delivery.leaseMs !== undefined ? { leaseMs: delivery.leaseMs } : {}),
    ...(options.remediation?.diagnosisWaitMs !== undefined
      ? { orderWaitMs: options.remediation.diagnosisWaitMs }
      : {}),
  });
  return {
    name: "outbox poster",
    poster,
    start: () => {
      if (!hooks.startStopped) poster.start();
    },
    stop: () => poster.stop(),
  };
}

/** Slash commands the receivers recorded in the command inbox, queued here. */
export function commandInboxReaderPart(shared: Shared): Part {
  const { log, connections, incidents, sweepQueues } = shared;
  let stop: (() => Promise<void>) | undefined;
  return {
    name: "command inbox reader",
    start() {
      const deps = {
        queues: incidents.queues,
        slack: incidents.slack,
        requestSweep: (request: { requestId: string; channel: string; user: string }) =>
          sweepQueues.requestSweep(request),
        rate: commandRateCounter(
          connections.redis,
          {
            perPerson: shared.config.bot.rateLimits.commandsPerPerson,
            perTable: shared.config.bot.rateLimits.diagnosesPerTable,
            windowSeconds: shared.config.bot.rateLimits.windowSeconds,
          },
          { namespace: shared.options.namespace, now: shared.wallClock },
        ),
        onCall: (table: string, user: string) => shared.remediation.isOnCall(table, user),
        autopilot: (action: "on" | "off" | "status", request: { channel: string; user: string }) =>
          shared.autopilot.command(action, request),
        now: shared.wallClock,
      };
      const reader = startInboxMover({
        // Its reads block: on a connection of its own.
        blocking: connections.blockingFor("inbox"),
        redis: connections.redis,
        key: shared.store.keys.inbox(),
        now: shared.wallClock,
        handle: async (entry) => {
          const command = parseInboxEntry(entry);
          if (command === undefined) {
            // Its text is a person's input: the length says enough to find it, nothing more is logged.
            log.error({ entryLength: entry.length }, "command inbox entry is not a command, dropped");
            return;
          }
          await runInboxCommand(deps, command);
        },
        onError: (error) => connections.errors.report("command inbox", error),
      });
      stop = () => reader.stop();
    },
    stop: () => stop?.(),
  };
}

/** Every 5 s: the work an alert intake promised but whose receiver died before queueing it. */
export function intakePromiseKeeperPart(shared: Shared): Part {
  let loop: DrainLoop | undefined;
  return {
    name: "intake promise keeper",
    start() {
      loop = startDrainLoop({
        pass: async () => {
          await keepIntakePromises(shared.incidents);
          // Alerts that waited for the cap on new incidents, as far as this minute allows.
          await drainDeferredAlerts(shared.incidents);
        },
        idleMs: INTAKE_KEEPER_EVERY_MS,
        retryMs: INTAKE_KEEPER_EVERY_MS,
        onError: (error) => shared.log.warn({ err: error.message }, "intake promises not kept yet"),
      });
    },
    stop: () => loop?.stop(),
  };
}

/** `start`'s workers in a supervised child process, so diagnoses never share the receiver's event loop. */
export function workerProcessPart(shared: Shared): Part & { supervisor?: WorkerSupervisor } {
  const { options } = shared;
  const part: Part & { supervisor?: WorkerSupervisor } = {
    name: "worker process",
    async start() {
      const child: WorkerChildOptions = {
        namespace: options.namespace,
        queuePrefix: options.queuePrefix,
        queueNames: options.queueNames,
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
        backoffMs: options.backoffMs,
        concurrency: options.concurrency,
        playbooksDir: options.playbooksDir,
        slackDelivery: options.slackDelivery,
        health: options.health,
      };
      const tuned = typeof options.workerProcess === "object" ? options.workerProcess : {};
      const supervisor = superviseWorker({
        now: shared.wallClock,
        config: shared.config,
        child,
        log: shared.log,
        ...tuned,
        onEvent: (event) => {
          if (event.kind === "restarting") shared.metrics.workerRestarts.inc();
          tuned.onEvent?.(event);
        },
        onHealth: (problem) => shared.health.set("worker", problem),
      });
      part.supervisor = supervisor;
      try {
        await supervisor.ready;
      } catch (error) {
        await supervisor.stop();
        throw error;
      }
    },
    async stop() {
      await part.supervisor?.stop();
      shared.log.info({ role: options.role }, "workers stopped");
    },
  };
  return part;
}
