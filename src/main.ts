// Composition root: config -> clients -> store and queues -> Slack app and workers. Shutdown runs
// in order on SIGTERM/SIGINT: stop receiving, drain the workers, close the queues, quit Redis.
// The `start` command runs the workers in a supervised child process (see worker-supervisor.ts)
// so that diagnoses never share the event loop that acknowledges Slack and alerts.

import type { Logger } from "pino";
import { createEvidencePorts } from "./adapters/evidence/from-config.js";
import { createMetrics } from "./adapters/http/metrics.js";
import { serveRoutes } from "./adapters/http/route-server.js";
import { healthRoutes } from "./adapters/http/routes.js";
import { registerSweepMetrics } from "./adapters/http/sweep-metrics.js";
import { createLogger } from "./adapters/log.js";
import { loadPlaybooks } from "./adapters/playbooks/files.js";
import { createCommandInbox, parseInboxEntry } from "./adapters/queue/command-inbox.js";
import { connectionErrorReporter, redisRetryStrategy } from "./adapters/queue/connection-errors.js";
import { type InboxMover, startInboxMover } from "./adapters/queue/inbox-mover.js";
import { DiagnoseJobSchema, SlackJobSchema } from "./adapters/queue/jobs.js";
import {
  type BotQueues,
  type BotWorkers,
  createQueues,
  type QueueNames,
  startWorkers,
} from "./adapters/queue/queues.js";
import { createRemediationQueue, startRemediationWorker } from "./adapters/queue/remediation-queue.js";
import { createSweepQueues, type SweepQueueNames, type SweepQueues } from "./adapters/queue/sweep-queue.js";
import { batchedFirstTime } from "./adapters/redis/batched-first-time.js";
import {
  checkPrimary,
  confirmReplicated,
  createRedisClient,
  type RedisClient,
} from "./adapters/redis/connection.js";
import { type BotApp, createBotApp } from "./adapters/slack/app.js";
import { boltLogger } from "./adapters/slack/bolt-logger.js";
import { defaultRenderers } from "./adapters/slack/default-renderers.js";
import { publishHome } from "./adapters/slack/home.js";
import { slackOutboxSender } from "./adapters/slack/outbox/jobs.js";
import { channelQueueId, homeQueueId, OutboxNotifier, SlackOutbox } from "./adapters/slack/outbox/outbox.js";
import { type BackoffSettings, OutboxPoster } from "./adapters/slack/outbox/poster.js";
import { renderSweepDigest } from "./adapters/slack/render/sweep-digest.js";
import type { Renderers } from "./adapters/slack/renderers.js";
import { REPLAY_MEMORY_SECONDS } from "./adapters/slack/replay-guard.js";
import {
  commandResultMessage,
  diagnosisChart,
  diagnosisMessage,
  renderCard,
  replyMessage,
  runSlackJob,
} from "./adapters/slack/slack-jobs.js";
import { slackTimelinePoster } from "./adapters/slack/upload.js";
import { applyFormFiller, SlackApproverDirectory } from "./adapters/slack/walk-slack.js";
import { createSlackClient } from "./adapters/slack/web-client.js";
import { AuditTrail } from "./adapters/store/audit-trail.js";
import { IncidentStore } from "./adapters/store/incident-store.js";
import { type RetentionRunner, startRetention } from "./adapters/store/retention.js";
import { SweepStore } from "./adapters/store/sweep-store.js";
import { WalkStore } from "./adapters/store/walk-store.js";
import { type Config, redactConfig, secretValues } from "./config.js";
import { asCodedError, CodedError, ErrorCode } from "./errors.js";
import { acceptAlerts, keepIntakePromises } from "./services/alerts.js";
import { runInboxCommand } from "./services/commands.js";
import type { AuditFn, DiagnoseFn } from "./services/incident/deps.js";
import { runDiagnoseJob } from "./services/incident/diagnosis.js";
import { createKnownTables } from "./services/incident/tables.js";
import type { EvidencePorts } from "./services/ports.js";
import { Remediation, type RemediationDeps } from "./services/remediation/remediation.js";
import { type SweepRuntime, startSweep } from "./sweep-wiring.js";
import {
  superviseWorker,
  type WorkerChildOptions,
  type WorkerSupervisor,
  type WorkerSupervisorOptions,
} from "./worker-supervisor.js";

export type BotRole = "start" | "serve" | "worker";

export interface BotOptions {
  role?: BotRole;
  /**
   * How the outbox poster talks to Slack: its request timeout, its backoff between attempts, and
   * how long it holds an incident's queue (a dead poster's is taken over once that runs out).
   */
  slackDelivery?: { timeoutMs?: number; backoff?: Partial<BackoffSettings>; leaseMs?: number };
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
  diagnose?: DiagnoseFn;
  audit?: AuditFn;
  render?: Renderers;
  log?: Logger;
  /** The clock incidents and walks read (default Date.now; the simulator drives its own). */
  now?: () => number;
  /** Real time, for delivery, leases and schedules (default Date.now). */
  wallClock?: () => number;
  webhookBodyLimitBytes?: number;
  /** Where the playbooks are read from (default playbooks/ at the package root). */
  playbooksDir?: string;
  /** The sweep's queue names (default: derived from queueNames), and catalog tasks per worker. */
  sweepQueueNames?: Partial<SweepQueueNames>;
  sweepConcurrency?: number;
  /** Follow-up pacing and test seams for guided remediation. */
  remediation?: Partial<
    Pick<RemediationDeps, "followUpIntervalMs" | "followUpChecks" | "afterApply"> & {
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
        "restartDelayMs" | "maxRestartDelayMs" | "healthyAfterMs" | "stopTimeoutMs" | "niceness" | "onEvent"
      >;
}

export interface Bot {
  /** The HTTP port (serve/start), or undefined for a worker. */
  port?: number;
  /** A worker's health and metrics port. */
  metricsPort?: number;
  app?: BotApp;
  queues: BotQueues;
  workers?: BotWorkers;
  /** The supervised worker child of `start`, when the workers run there. */
  workerProcess?: WorkerSupervisor;
  store: IncidentStore;
  redis: RedisClient;
  log: Logger;
  remediation: Remediation;
  sweep: { queues: SweepQueues; store: SweepStore; runtime?: SweepRuntime };
  /**
   * True when nothing is left to do now: no job waiting, running or due for a retry on the
   * diagnosis and Slack queues, none waiting or running on the remediation and sweep queues
   * (scheduled follow-ups and sweeps are not work now), nothing owed to Slack, and no request
   * whose listeners are still at work in this process's receiver.
   */
  idle(): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startBot(config: Config, options: BotOptions = {}): Promise<Bot> {
  const role = options.role ?? "start";
  // Incidents and walks read `now` (a simulator may drive it); delivery, leases and schedules run
  // on real time, whatever clock the incident reads.
  const now = options.now ?? Date.now;
  const wallClock = options.wallClock ?? Date.now;
  const log = options.log ?? createLogger(config);
  const render = options.render ?? defaultRenderers;
  if (role !== "worker" && config.slack.mode === "http" && !config.slack.signingSecret) {
    throw new CodedError(ErrorCode.ConfigInvalid, "SLACK_SIGNING_SECRET is not set.", {
      hint: "Set it from the app's Basic Information page, or set SLACK_APP_TOKEN to use Socket Mode.",
    });
  }
  // Playbooks first: a bot with broken playbooks must not start (the error names file and line).
  const playbooks = await loadPlaybooks(options.playbooksDir);
  // One line per retry period while Redis is away, whichever connection notices (connection-errors.ts).
  const redisErrors = connectionErrorReporter(log);
  // Commands (store, claims, queue producers) on one client; workers on a blocking one.
  const redis = redisErrors.watch(
    createRedisClient(config.redis, "commands", {
      connectionName: "iceberg-bot",
      retryStrategy: redisRetryStrategy,
    }),
    "redis",
  );
  const queueRedis = redisErrors.watch(
    createRedisClient(config.redis, "blocking", {
      connectionName: "iceberg-bot-workers",
      retryStrategy: redisRetryStrategy,
    }),
    "queues",
  );
  const store = new IncidentStore(redis, { namespace: options.namespace, wallClock });
  // What a post or upload to Slack writes first (its claim, its "sending" mark) must survive a
  // failover before the request goes out, or a new primary would send it again.
  const confirmDurable = () => confirmReplicated(redis, config.redis, store.keys.sequence());
  const queues = createQueues({
    connection: redis,
    prefix: options.queuePrefix,
    names: options.queueNames,
    backoffMs: options.backoffMs,
  });
  // Slash commands recorded by a receiver, waiting for a worker to queue them.
  const commandInbox = createCommandInbox(redis, store.keys, {
    replayMemorySeconds: REPLAY_MEMORY_SECONDS,
    // A command is recorded once the replicas REDIS_URL asks for hold it, as an alert is.
    confirmDurable,
  });
  // The command inbox counts as a queue: what waits there is as owed as a waiting job.
  const metrics = createMetrics({
    queueDepth: async () => ({
      ...(await queues.depth()),
      "command-inbox.waiting": await commandInbox.length(),
    }),
  });
  const sweepStore = new SweepStore(redis, options.namespace);
  const sweepQueues = createSweepQueues({
    connection: queueRedis,
    prefix: queues.prefix,
    names: options.sweepQueueNames ?? sweepNamesFrom(options.queueNames),
    backoffMs: options.backoffMs,
  });
  registerSweepMetrics(metrics.registry, sweepStore, config.bot.sweep.metricsTables);
  const ports = options.ports ?? createEvidencePorts(config);
  const knownTables = createKnownTables({ bot: config.bot, catalog: ports.catalog, now });
  // The status card, diagnoses, notes and in-thread results are written to the outbox when asked
  // for; one poster (with the workers) sends them and everything else remediation owes Slack.
  const outbox = new SlackOutbox(redis, options.namespace);
  const slack = slackOutboxSender(outbox, store, wallClock);
  const deps = {
    store,
    queues,
    slack,
    bot: config.bot,
    incidentChannel: config.incidentChannel,
    now,
    log,
  };

  // Channels hear "the catalog", never its internal address (the logs keep it).
  const addresses = [
    { url: config.catalog.url ?? "", name: "the catalog" },
    { url: config.flinkUrl ?? "", name: "Flink" },
    { url: config.connectUrl ?? "", name: "Kafka Connect" },
    { url: config.prometheusUrl ?? "", name: "Prometheus" },
  ];
  const client = createSlackClient({
    token: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    logger: boltLogger(log),
    secrets: secretValues(config),
    addresses,
  });
  const remediationQueueName = options.queueNames?.diagnose
    ? `${options.queueNames.diagnose}-remediation`
    : undefined;
  const remediationQueue = createRemediationQueue({
    connection: redis,
    prefix: queues.prefix,
    name: remediationQueueName,
    backoffMs: options.backoffMs,
  });
  const { diagnosisWaitMs, ...remediationOptions } = options.remediation ?? {};
  for (const [name, queue] of [
    ["diagnose", queues.diagnose],
    ["slack", queues.slack],
    ["remediation", remediationQueue.queue],
    ["sweep", sweepQueues.control],
    ["sweep-catalog", sweepQueues.catalog],
  ] as const) {
    redisErrors.watch(queue, `queue ${name}`);
  }
  const remediation = new Remediation({
    // A decision and the messages it owes Slack are saved in one atomic step.
    walks: new WalkStore(redis, options.namespace, { outbox, now: wallClock }),
    audit: new AuditTrail(redis, store.keys, config.bot.retention.auditDays),
    store,
    slack,
    jobs: remediationQueue,
    // Delivery is scheduled in wall-clock time, whatever clock the walk itself reads.
    notifier: new OutboxNotifier(outbox, wallClock, applyFormFiller(client)),
    approvers: new SlackApproverDirectory(client, now, (group, error) =>
      log.warn({ group, err: asCodedError(error).message }, "usergroups.users.list failed"),
    ),
    playbooks,
    bot: config.bot,
    ports,
    now,
    log,
    sourceTimeoutMs: config.sourceTimeoutMs,
    recoveryChart: true,
    ...remediationOptions,
  });

  // Every worker's "error" event: a lost connection once per retry period, anything else as itself.
  const onWorkerError = (queue: string, error: Error) => redisErrors.report(`worker ${queue}`, error);
  const childWorkers =
    role === "start" && options.workerProcess !== undefined && options.workerProcess !== false;
  const inlineWorkers = role === "worker" || (role === "start" && !childWorkers);
  let workers: BotWorkers | undefined;
  let remediationWorker: ReturnType<typeof startRemediationWorker> | undefined;
  let poster: OutboxPoster | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let retention: RetentionRunner | undefined;
  let inboxMover: InboxMover | undefined;
  let inboxRedis: RedisClient | undefined;
  if (inlineWorkers) {
    // Loaded on first use: a serve-only process never needs the evidence stack.
    const diagnose: DiagnoseFn =
      options.diagnose ??
      (async (p, request, clock) =>
        (await import("./services/diagnose-table.js")).diagnoseTable(p, request, clock, {
          playbooks: playbooks.playbooks,
        }));
    const audit: AuditFn =
      options.audit ??
      (async (p, request, clock) =>
        (await import("./services/audit-table.js")).auditTable(p, request, clock));
    const diagnosisDeps = {
      ...deps,
      ports,
      diagnose,
      audit,
      sourceTimeoutMs: config.sourceTimeoutMs,
      knownTables,
      remediation,
    };
    const slackDeps = {
      client,
      store,
      render,
      now,
      onSlackError: (method: string) => metrics.slackErrors.inc({ method }),
      log,
    };
    workers = startWorkers(
      {
        connection: queueRedis,
        prefix: options.queuePrefix,
        names: options.queueNames,
        concurrency: { diagnose: config.bot.workers.diagnoses, ...options.concurrency },
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
        onFailed: (queue, job, error) => {
          metrics.jobOutcomes.inc({ queue, outcome: "failed" });
          log.warn({ queue, job: job?.id, attempt: job?.attemptsMade, err: error.message }, "job failed");
        },
        onCompleted: (queue) => metrics.jobOutcomes.inc({ queue, outcome: "completed" }),
        onError: onWorkerError,
      },
      {
        diagnose: async (job) => {
          const started = now();
          await runDiagnoseJob(diagnosisDeps, DiagnoseJobSchema.parse(job.data), String(job.id));
          metrics.diagnosisSeconds.observe({ kind: job.data.kind }, (now() - started) / 1000);
        },
        slack: (job) => runSlackJob(slackDeps, SlackJobSchema.parse(job.data)),
      },
    );
  }

  if (inlineWorkers) {
    // Slash commands the receivers recorded, queued here; reads block, so on a connection of their own.
    inboxRedis = redisErrors.watch(
      createRedisClient(config.redis, "blocking", {
        connectionName: "iceberg-bot-inbox",
        retryStrategy: redisRetryStrategy,
      }),
      "inbox",
    );
    const commandDeps = {
      queues,
      slack,
      requestSweep: (request: { requestId: string; channel: string; user: string }) =>
        sweepQueues.requestSweep(request),
    };
    inboxMover = startInboxMover({
      blocking: inboxRedis,
      redis,
      key: store.keys.inbox(),
      now: wallClock,
      handle: async (entry) => {
        const command = parseInboxEntry(entry);
        if (command === undefined) {
          // Its text is a person's input: the length says enough to find it, nothing more is logged.
          log.error({ entryLength: entry.length }, "command inbox entry is not a command, dropped");
          return;
        }
        await runInboxCommand(commandDeps, command);
      },
      onError: (error) => redisErrors.report("command inbox", error),
    });
    // Jobs an intake promised but whose receiver died before queueing them (see alerts.ts).
    sweeper = setInterval(() => {
      keepIntakePromises({ queues, slack, store }).catch((error: unknown) =>
        log.warn({ err: (error as Error).message }, "intake outbox sweep failed"),
      );
    }, 5_000);
    sweeper.unref();
    retention = startRetention({
      redis,
      keys: store.keys,
      now,
      resolvedDays: config.bot.retention.resolvedDays,
      onPurged: (count) => log.info({ count }, "closed incidents past their retention removed"),
      onError: (error) => log.warn({ err: error.message }, "retention pass failed"),
    });
    const posterClient = createSlackClient({
      token: config.slack.botToken,
      apiUrl: config.slack.apiUrl,
      logger: boltLogger(log),
      secrets: secretValues(config),
      addresses,
      oneAttempt: true,
      ...(options.slackDelivery?.timeoutMs !== undefined
        ? { timeoutMs: options.slackDelivery.timeoutMs }
        : {}),
    });
    poster = new OutboxPoster({
      outbox,
      slack: posterClient,
      store,
      charts: slackTimelinePoster(posterClient),
      onSlackError: (method: string) => metrics.slackErrors.inc({ method }),
      views: {
        card: (incident) => renderCard({ store, render, now }, incident),
        diagnosis: (incidentId, n) => diagnosisMessage({ store, render }, incidentId, n),
        commandResult: (result) =>
          commandResultMessage({ render }, result as Parameters<typeof commandResultMessage>[1]),
        diagnosisChart: (incidentId, n) => diagnosisChart({ store }, incidentId, n),
        channelMessage: (message) =>
          message.kind === "digest" ? renderSweepDigest(message.digest) : render.audit(message.report),
        home: (user) =>
          publishHome(
            { client: posterClient, store, render, now: now(), latestSweep: () => sweepStore.latest() },
            user,
          ),
        reply: (reply) => replyMessage({ client, store, render, now }, reply),
      },
      now: wallClock,
      log,
      confirmDurable,
      ...(options.slackDelivery?.backoff ? { backoff: options.slackDelivery.backoff } : {}),
      ...(options.slackDelivery?.leaseMs !== undefined ? { leaseMs: options.slackDelivery.leaseMs } : {}),
      ...(diagnosisWaitMs !== undefined ? { orderWaitMs: diagnosisWaitMs } : {}),
    });
    poster.start();
    remediationWorker = startRemediationWorker(
      {
        connection: queueRedis,
        prefix: queues.prefix,
        name: remediationQueueName,
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
        onFailed: (job, error) => {
          metrics.jobOutcomes.inc({ queue: "remediation", outcome: "failed" });
          log.warn({ queue: "remediation", job: job?.id, err: error.message }, "job failed");
        },
        onError: onWorkerError,
      },
      (job) => remediation.runJob(job),
    );
  }

  let sweepRuntime: SweepRuntime | undefined;
  // Wherever the diagnosis workers run (this process or start's worker child), the sweep runs too.
  if (inlineWorkers) {
    sweepRuntime = await startSweep({
      config,
      redis,
      connection: queueRedis,
      queues: sweepQueues,
      store: sweepStore,
      incidentStore: store,
      client,
      postInChannel: async (channel, name, message, threadTs) => {
        await outbox.append(channelQueueId(channel), channel, wallClock(), {
          kind: "channel-post",
          name,
          message,
          ...(threadTs ? { threadTs } : {}),
        });
      },
      playbooks: playbooks.playbooks,
      ports: options.ports,
      namespace: options.namespace,
      concurrency: options.sweepConcurrency,
      lockDurationMs: options.lockDurationMs,
      stalledIntervalMs: options.stalledIntervalMs,
      now,
      log,
      onFailed: (queue, job, error) => {
        metrics.jobOutcomes.inc({ queue, outcome: "failed" });
        log.warn({ queue, job: job?.id, err: error.message }, "job failed");
      },
      onError: onWorkerError,
      startFix: async (table, user, channel) =>
        (await import("./services/sweep/start-fix.js")).startFixFromSweep(deps, table, user, channel),
      reply: async (channel, user, reply) => {
        await slack.send({ kind: "ephemeral", channel, user, reply });
      },
    });
  }

  let workerProcess: WorkerSupervisor | undefined;
  if (childWorkers) {
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
    };
    workerProcess = superviseWorker({
      now: wallClock,
      config,
      child,
      log,
      ...(typeof options.workerProcess === "object" ? options.workerProcess : {}),
    });
    try {
      await workerProcess.ready;
    } catch (error) {
      await workerProcess.stop();
      await Promise.all([closeRedis(redis), closeRedis(queueRedis)]);
      throw error;
    }
  }

  let app: BotApp | undefined;
  let port: number | undefined;
  if (role !== "worker") {
    app = createBotApp({
      slack: config.slack,
      alertWebhookToken: config.alertWebhookToken,
      webhookBodyLimitBytes: options.webhookBodyLimitBytes,
      // The producers, the store and the claims all use this connection.
      redisReady: () => redis.status === "ready",
      queues,
      inbox: commandInbox,
      store,
      // A burst of Slack requests checks for replays in one round trip per event-loop turn.
      firstTime: batchedFirstTime(redis, (scope, key) => store.keys.seen(scope, key)),
      render,
      metrics,
      log,
      now,
      remediation,
      sweep: {
        requestAudit: (request) => sweepQueues.requestAudit(request),
        requestFix: (request) => sweepQueues.requestFix(request),
      },
      // What the receiver itself sends (acks, response_url replies, views it opens) is scrubbed
      // like everything the workers send.
      scrub: { secrets: secretValues(config), addresses },
      latestSweep: () => sweepStore.latest(),
      // Published by the outbox's poster, retried through a Slack outage.
      queueHome: async (user) => {
        await outbox.append(homeQueueId(user), "", wallClock(), { kind: "home", user });
      },
      pingRedis: () => checkPrimary(redis, config.redis, store.keys.sequence()),
      acceptAlerts: async (alerts) => {
        const outcome = await acceptAlerts({ ...deps, knownTables }, alerts);
        // Answer only once the replicas REDIS_URL asks for hold the alert: a failover right
        // after the answer must not lose it (the sender retries a 5xx).
        await confirmDurable();
        return outcome;
      },
    });
    ({ port } = await app.start(options.port ?? config.port));
    log.info({ port, mode: config.slack.mode, role }, "iceberg-bot listening");
  }

  // A worker answers probes and scrapes on its own port (start's child leaves that to its parent).
  const opsServer =
    role === "worker" && options.metricsPort !== undefined
      ? await serveRoutes(
          healthRoutes({
            pingRedis: () => checkPrimary(redis, config.redis, store.keys.sequence()),
            registry: metrics.registry,
          }),
          options.metricsPort,
        )
      : undefined;
  if (opsServer) log.info({ port: opsServer.port, role }, "worker health and metrics listening");

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await app?.stop();
      await opsServer?.close();
      if (app) log.info({ role }, "receiver stopped");
      if (sweeper) clearInterval(sweeper);
      retention?.stop();
      await inboxMover?.stop();
      await workers?.close();
      await remediationWorker?.close();
      await poster?.stop();
      await sweepRuntime?.workers.close();
      await workerProcess?.stop();
      if (workers || workerProcess) log.info({ role }, "workers stopped");
      await sweepQueues.close();
      await queues.close();
      await remediationQueue.close();
      await Promise.all([closeRedis(redis), closeRedis(queueRedis), inboxRedis && closeRedis(inboxRedis)]);
    })();
    return stopping;
  };
  return {
    port,
    metricsPort: opsServer?.port,
    app,
    queues,
    workers,
    workerProcess,
    store,
    redis,
    log,
    remediation,
    sweep: { queues: sweepQueues, store: sweepStore, runtime: sweepRuntime },
    async idle() {
      // What the receiver is still doing for requests already answered comes first.
      await app?.settled();
      const busy = await Promise.all([
        ...[queues.diagnose, queues.slack].map((q) => q.getJobCounts("waiting", "active", "delayed")),
        ...[remediationQueue.queue, sweepQueues.control, sweepQueues.catalog].map((q) =>
          q.getJobCounts("waiting", "active", "prioritized"),
        ),
      ]);
      const jobs = busy.flatMap((counts) => Object.values(counts)).reduce((a, b) => a + b, 0);
      return jobs === 0 && (await outbox.pending()) === 0 && (await commandInbox.length()) === 0;
    },
    stop,
  };
}

/** quit() waits for Redis to answer, which never comes while it is away: then just disconnect. */
async function closeRedis(connection: RedisClient, waitMs = 1000): Promise<void> {
  if (connection.status === "ready") {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      connection.quit().catch(() => {}),
      new Promise((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }
  connection.disconnect();
}

function sweepNamesFrom(names: Partial<QueueNames> | undefined): Partial<SweepQueueNames> | undefined {
  if (!names?.diagnose) return undefined;
  return { control: `${names.diagnose}-sweep`, catalog: `${names.diagnose}-sweep-catalog` };
}

/** How long SIGTERM may take: beyond it (Redis away, a job stuck) the process exits anyway. */
export const SHUTDOWN_DEADLINE_MS = 15_000;

/**
 * Runs until SIGTERM/SIGINT, then shuts down in order. Resolves with the exit code: 0 after a
 * clean shutdown, 1 when it failed or the deadline passed. A signal during start-up (Redis not
 * answering yet) is honoured too.
 */
async function runUntilSignal(
  config: Config,
  role: BotRole,
  deadlineMs = SHUTDOWN_DEADLINE_MS,
): Promise<number> {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => resolve(signal);
  });
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  const starting = startBot(config, {
    role,
    workerProcess: role === "start",
    metricsPort: role === "worker" ? config.metricsPort : undefined,
  });
  const first = await Promise.race([
    starting.then((bot) => ({ bot })),
    signalled.then((signal) => ({ signal })),
  ]);
  const deadline = (log: Pick<Logger, "error">) =>
    new Promise<number>((resolve) => {
      setTimeout(() => {
        log.error({ deadlineMs }, "shutdown did not finish within the deadline, exiting");
        resolve(1);
      }, deadlineMs).unref();
    });
  if (!("bot" in first)) {
    // Stopped before start-up finished: whatever started is stopped, within the deadline.
    const log = createLogger(config);
    log.info({ signal: first.signal }, "shutting down during start-up");
    const stopped = starting.then(
      (bot) => bot.stop().then(() => 0),
      () => 1,
    );
    return Promise.race([stopped, deadline(log)]).finally(() => detach(onSignal));
  }
  const { bot } = first;
  bot.log.info({ config: redactConfig(config) }, "started");
  const signal = await signalled;
  bot.log.info({ signal }, "shutting down");
  const stopped = bot.stop().then(
    () => 0,
    (error: unknown) => {
      bot.log.error({ err: (error as Error).message }, "shutdown failed");
      return 1;
    },
  );
  return Promise.race([stopped, deadline(bot.log)]).finally(() => detach(onSignal));
}

function detach(listener: (signal: NodeJS.Signals) => void): void {
  process.off("SIGTERM", listener);
  process.off("SIGINT", listener);
}

export function runStart(config: Config): Promise<number> {
  return runUntilSignal(config, "start");
}

export function runServe(config: Config): Promise<number> {
  return runUntilSignal(config, "serve");
}

export function runWorker(config: Config): Promise<number> {
  return runUntilSignal(config, "worker");
}
