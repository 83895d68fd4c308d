// What every part of one process shares, built once: the stores, the Slack outbox and the one
// way to it, the queues (a part: closed after everything that adds to them), the metrics, the
// Slack client, the evidence ports and the remediation use case. Nothing here starts work.

import type { Logger } from "pino";
import { createEvidencePorts } from "../adapters/evidence/from-config.js";
import { createSourceWatch } from "../adapters/evidence/source-watch.js";
import { HealthState, SlackHealthBoard } from "../adapters/http/health.js";
import { registerAutopilotMetrics } from "../adapters/http/metrics/autopilot.js";
import { readBacklogs } from "../adapters/http/metrics/backlogs.js";
import { registerHistoryMetrics } from "../adapters/http/metrics/history.js";
import { createMetrics } from "../adapters/http/metrics/registry.js";
import { registerSweepMetrics } from "../adapters/http/metrics/sweep.js";
import { REPLAY_MEMORY_SECONDS } from "../adapters/http/replay-guard.js";
import { WEBHOOK_KINDS } from "../adapters/http/webhook.js";
import { loadPlaybooks } from "../adapters/playbooks/files.js";
import { createCommandInbox } from "../adapters/queue/command-inbox.js";
import { createQueues, type QueueNames } from "../adapters/queue/queues.js";
import { createRemediationQueue } from "../adapters/queue/remediation-queue.js";
import { createSweepQueues, type SweepQueueNames } from "../adapters/queue/sweep-queue.js";
import { leftJobReporter } from "../adapters/queue/worker.js";
import { checkPrimary, confirmReplicated } from "../adapters/redis/connection.js";
import { boltLogger } from "../adapters/slack/bolt-logger.js";
import { SlackOutbox } from "../adapters/slack/outbox/outbox.js";
import { OutboxNotifier, owedWithWalk, slackOutboxSender } from "../adapters/slack/outbox/say.js";
import { applyFormFiller, SlackApproverDirectory } from "../adapters/slack/remediation-slack.js";
import { createSlackClient, type SlackClient } from "../adapters/slack/web-client.js";
import { AuditTrail } from "../adapters/store/audit-trail.js";
import { AutopilotStore } from "../adapters/store/autopilot-store.js";
import { deferredAlertsStore } from "../adapters/store/deferred-alerts.js";
import { HistoryStore } from "../adapters/store/history-store.js";
import { IncidentStore } from "../adapters/store/incident-store.js";
import { RemediationStore } from "../adapters/store/remediation-store.js";
import { SweepStore } from "../adapters/store/sweep-store.js";
import { type Config, secretValues } from "../config.js";
import { policyStepLines } from "../core/autopilot/policy.js";
import { DiagnoseJobSchema } from "../core/jobs.js";
import { asCodedError, CodedError, ErrorCode } from "../errors.js";
import { Autopilot } from "../services/autopilot/autopilot.js";
import { createKnownTables } from "../services/incident/tables.js";
import { Remediation } from "../services/remediation/remediation.js";
import { packageVersion } from "../util/package-root.js";
import type { Connections } from "./connections.js";
import { flinkDiscoveryPart } from "./flink-discovery.js";
import { type BotOptions, runsWorkers } from "./options.js";
import type { Part } from "./part.js";

/** What every part of one process shares (see assemble). */
export type Shared = Awaited<ReturnType<typeof assemble>>;

export async function assemble(config: Config, options: BotOptions, connections: Connections, log: Logger) {
  const shared = await assembleServices(config, options, connections, log);
  return { ...shared, ...wireRemediation(shared) };
}

/** Everything but remediation and autopilot, which are built from it. */
async function assembleServices(config: Config, options: BotOptions, connections: Connections, log: Logger) {
  // Playbooks first: a bot with broken playbooks must not start (the error names file and line).
  const playbooks = await loadPlaybooks(options.playbooksDir);
  // An autopilot policy may name only steps these playbooks mark reversible and low risk.
  const autopilotProblems = policyStepLines(config.bot.autopilot, playbooks.playbooks, config.autopilotLines);
  if (autopilotProblems.length > 0)
    throw new CodedError(
      ErrorCode.ConfigInvalid,
      `Invalid configuration:\n  - ${autopilotProblems.join("\n  - ")}`,
      {
        hint: "Name only steps marked reversible: true and lowRisk: true (docs/autopilot.md).",
        details: { problems: autopilotProblems },
      },
    );
  // The clock incidents and walks read (a simulator may drive it), and real time, which delivery,
  // leases and schedules run on whatever clock the incident reads.
  const now = options.now ?? Date.now;
  const wallClock = options.wallClock ?? Date.now;
  const { redis } = connections;
  const store = new IncidentStore(redis, { namespace: options.namespace, wallClock });
  const { byName, ...queueSet } = createQueueSet(options, connections);
  // Slash commands recorded by a receiver, waiting for a worker to queue them; recorded once the
  // replicas REDIS_URL asks for hold them, as an alert is.
  const confirmDurable = () => confirmReplicated(redis, config.redis, store.keys.sequence());
  const commandInbox = createCommandInbox(redis, store.keys, {
    replayMemorySeconds: REPLAY_MEMORY_SECONDS,
    confirmDurable,
  });
  // The command inbox counts as a queue: what waits there is as owed as a waiting job.
  const outbox = new SlackOutbox(redis, options.namespace);
  const health = new HealthState(log);
  const slackHealth = new SlackHealthBoard(redis, store.keys.slackHealth(), health);
  const metrics = createMetrics({
    version: packageVersion(),
    queueDepth: async () => ({
      ...(await queueSet.queues.depth()),
      "command-inbox.waiting": await commandInbox.length(),
    }),
    backlogs: () =>
      readBacklogs({
        redis,
        queues: byName,
        inboxKey: store.keys.inbox(),
        intakeKey: store.keys.intakePromises(),
        slackOutbox: outbox,
        now: wallClock,
      }),
    // Read from memory, so a scrape never waits on Redis for it.
    failingChecks: () => {
      const failing = new Set(health.failingChecks());
      if (redis.status !== "ready") failing.add("redis");
      return failing;
    },
  });
  const sweepStore = new SweepStore(redis, options.namespace);
  registerSweepMetrics(metrics.registry, sweepStore, config.bot.sweep.metricsTables);
  // Only a process that runs workers reads Flink through discovery: a receiver (`serve`, or `start`
  // with a worker child) never lists, nor needs the Kubernetes credentials.
  const flinkDiscovery =
    options.ports || !runsWorkers(options)
      ? undefined
      : flinkDiscoveryPart(config, log, options.flinkDiscovery);
  const flinkProviders = flinkDiscovery ? [flinkDiscovery.provider] : [];
  // Every source's requests counted, its failures logged once and shown in /readyz.
  const sourceWatch = createSourceWatch({ metrics, log, now: wallClock });
  const ports = options.ports ?? createEvidencePorts(config, { flinkProviders, watch: sourceWatch });
  metrics.know({
    queues: [queueSet.queues.names.diagnose, queueSet.queues.names.slack],
    diagnosisKinds: DiagnoseJobSchema.options.map((o) => o.shape.kind.value),
    webhookSources: WEBHOOK_KINDS,
    sources: options.ports ? [] : configuredSources(config),
  });
  // Each table's closed incidents, kept as long as the incidents themselves.
  const history = new HistoryStore(redis, {
    namespace: options.namespace,
    resolvedDays: config.bot.retention.resolvedDays,
    now,
    onUnreadable: ({ table, incidentId, why }) =>
      log.error({ table, incidentId, why }, "a stored history record cannot be read; it is passed over"),
  });
  registerHistoryMetrics(metrics.registry, history);
  const incidents = {
    store,
    history,
    queues: queueSet.queues,
    slack: (options.slackPort ?? ((port) => port))(slackOutboxSender(outbox, store, wallClock)),
    bot: config.bot,
    incidentChannel: config.incidentChannel,
    now,
    log,
    knownTables: createKnownTables({
      bot: config.bot,
      mapped: config.sources.catalogs.flatMap((c) => c.tables),
      catalog: ports.catalog,
      now,
    }),
    // The cap's minute is real time, whatever clock incidents read.
    deferred: deferredAlertsStore(redis, { namespace: options.namespace, now: wallClock }),
  };
  const addresses = internalAddresses(config);
  const client = slackClient(config, log, addresses);
  const jobLeft = leftJobReporter({
    count: (queue) => metrics.jobOutcomes.inc({ queue, outcome: "left" }),
    log,
  });
  return {
    ...{ config, options, log, now, wallClock, playbooks, connections, store, outbox, incidents },
    ...queueSet,
    ...{ commandInbox, metrics, health, slackHealth, sweepStore, client, addresses, ports, sourceWatch },
    ...(flinkDiscovery ? { flinkDiscovery } : {}),
    confirmDurable,
    pingRedis: () => checkPrimary(redis, config.redis, store.keys.sequence()),
    jobLeft,
  };
}

/** The sources BOT_CONFIG and the environment name (discovered Flink sources join as they are seen). */
function configuredSources(config: Config): { kind: string; source: string }[] {
  const { catalogs, flink, connect, prometheus } = config.sources;
  return [
    ...catalogs.map((s) => ({ kind: "catalog", source: s.name })),
    ...flink.map((s) => ({ kind: "flink", source: s.name })),
    ...connect.map((s) => ({ kind: "connect", source: s.name })),
    ...prometheus.map((s) => ({ kind: "prometheus", source: s.name })),
  ];
}

/**
 * Channels hear "the catalog", never its internal address (the logs keep it); a named source by
 * its name when there are several: "the catalog lake-eu".
 */
function internalAddresses(config: Config) {
  const named = (word: string, specs: readonly { name: string; url: string }[]) =>
    specs.map((s) => ({ url: s.url, name: specs.length === 1 ? word : `${word} ${s.name}` }));
  const { catalogs, flink, connect, prometheus } = config.sources;
  return [
    ...named("the catalog", catalogs),
    ...named("Flink", flink),
    ...named("Kafka Connect", connect),
    ...named("Prometheus", prometheus),
  ];
}

/** A Slack Web API client scrubbing secrets and internal addresses from what it sends. */
export function slackClient(
  config: Config,
  log: Logger,
  addresses: Shared["addresses"],
  extra: { oneAttempt?: boolean; timeoutMs?: number } = {},
): SlackClient {
  return createSlackClient({
    token: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    logger: boltLogger(log),
    secrets: secretValues(config),
    addresses,
    ...extra,
  });
}

/** The BullMQ queues, one part: closed after every part that adds to them has stopped. */
function createQueueSet(options: BotOptions, connections: Connections) {
  const queues = createQueues({
    connection: connections.redis,
    prefix: options.queuePrefix,
    names: options.queueNames,
    backoffMs: options.backoffMs,
  });
  const remediationQueue = createRemediationQueue({
    connection: connections.redis,
    prefix: queues.prefix,
    name: remediationQueueName(options),
    backoffMs: options.backoffMs,
  });
  const sweepQueues = createSweepQueues({
    connection: connections.blocking,
    prefix: queues.prefix,
    names: sweepNamesFrom(options.queueNames),
    backoffMs: options.backoffMs,
  });
  const byName = {
    diagnose: queues.diagnose,
    slack: queues.slack,
    remediation: remediationQueue.queue,
    sweep: sweepQueues.control,
    "sweep-catalog": sweepQueues.catalog,
  };
  for (const [name, queue] of Object.entries(byName)) connections.errors.watch(queue, `queue ${name}`);
  const queuesPart: Part = {
    name: "queues",
    async stop() {
      await sweepQueues.close();
      await queues.close();
      await remediationQueue.close();
    },
  };
  return { queues, remediationQueue, sweepQueues, queuesPart, byName };
}

function remediationQueueName(options: BotOptions): string | undefined {
  return options.queueNames?.diagnose ? `${options.queueNames.diagnose}-remediation` : undefined;
}

function sweepNamesFrom(names: Partial<QueueNames> | undefined): Partial<SweepQueueNames> | undefined {
  if (!names?.diagnose) return undefined;
  return { control: `${names.diagnose}-sweep`, catalog: `${names.diagnose}-sweep-catalog` };
}

function wireRemediation(shared: Awaited<ReturnType<typeof assembleServices>>): {
  remediation: Remediation;
  autopilot: Autopilot;
} {
  const { config, options, connections, store, outbox, wallClock, now, log } = shared;
  const { diagnosisWaitMs: _orderWait, ...seams } = options.remediation ?? {};
  // A decision and the messages it owes Slack are saved in one atomic step.
  const walks = new RemediationStore(connections.redis, options.namespace, owedWithWalk(outbox, wallClock));
  const notifier = new OutboxNotifier(outbox, wallClock, applyFormFiller(shared.client));
  const audit = new AuditTrail(connections.redis, store.keys, config.bot.retention.auditDays);
  let autopilot: Autopilot | undefined;
  const remediation = new Remediation({
    walks,
    audit,
    store,
    history: shared.incidents.history,
    slack: shared.incidents.slack,
    jobs: shared.remediationQueue,
    // Delivery is scheduled in wall-clock time, whatever clock the walk itself reads.
    notifier,
    approvers: new SlackApproverDirectory(shared.client, now, (group, error) =>
      log.warn({ group, err: asCodedError(error).message }, "usergroups.users.list failed"),
    ),
    playbooks: shared.playbooks,
    bot: config.bot,
    ports: shared.ports,
    now,
    log,
    sourceTimeoutMs: config.sourceTimeoutMs,
    ...seams,
    // Autopilot uses remediation's own paths, so it is built once remediation is.
    autopilot: {
      proposed: (incidentId) => autopilot?.proposed(incidentId) ?? Promise.resolve(),
      settle: (incidentId) => autopilot?.settle(incidentId) ?? Promise.resolve(),
      run: (job) => autopilot?.run(job) ?? Promise.resolve(),
    },
  });
  const autopilotStore = new AutopilotStore(connections.redis, options.namespace);
  const built = new Autopilot({
    config: config.bot.autopilot,
    audit,
    policyLines: config.autopilotLines,
    store: autopilotStore,
    walks,
    incidents: store,
    jobs: shared.remediationQueue,
    notifier,
    slack: shared.incidents.slack,
    playbooks: shared.playbooks,
    remediation,
    now,
    log,
    onDecision: registerAutopilotMetrics(shared.metrics.registry, autopilotStore),
    ...(options.autopilot?.afterApprove ? { afterApprove: options.autopilot.afterApprove } : {}),
  });
  autopilot = built;
  return { remediation, autopilot: built };
}
