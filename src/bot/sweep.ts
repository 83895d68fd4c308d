// The catalog sweep's part of a worker process: wires its rate-limited evidence ports, the service,
// the control jobs' processor (services/sweep/control.ts), the BullMQ workers and the weekly
// schedule. Its digest and audits go out through the Slack outbox.

import type { ConnectionOptions, Job } from "bullmq";
import type { Logger } from "pino";
import { createEvidencePorts } from "../adapters/evidence/from-config.js";
import { gatedDispatcher } from "../adapters/evidence/gated-dispatcher.js";
import { type SweepQueues, startSweepWorkers } from "../adapters/queue/sweep-queue.js";
import type { RedisClient } from "../adapters/redis/connection.js";
import { type ChannelMessage, channelQueueId } from "../adapters/slack/outbox/outbox.js";
import { threadPermalink } from "../adapters/slack/slack-jobs.js";
import type { SlackClient } from "../adapters/slack/web-client.js";
import type { IncidentStore } from "../adapters/store/incident-store.js";
import type { SweepStore } from "../adapters/store/sweep-store.js";
import { rateWindow } from "../adapters/store/window-counters.js";
import type { Config } from "../config.js";
import { recurringTables } from "../core/history/fleet.js";
import type { EphemeralReply } from "../core/jobs.js";
import type { Playbook } from "../core/playbook/schema.js";
import type { FlinkSourceProvider } from "../core/sources/model.js";
import type { OpenIncidentRef, RecurringDigest } from "../core/sweep/digest.js";
import type { CodedError } from "../errors.js";
import type { EvidencePorts } from "../services/ports.js";
import { sweepControl } from "../services/sweep/control.js";
import { SweepService } from "../services/sweep/service.js";
import { withSharedListings } from "../services/sweep/shared-listings.js";
import type { StartFixOutcome } from "../services/sweep/start-fix.js";
import type { SweepRuntime } from "./options.js";
import type { Part } from "./part.js";
import type { Shared } from "./shared.js";

interface SweepWiring {
  config: Config;
  redis: RedisClient;
  connection: ConnectionOptions;
  queues: SweepQueues;
  store: SweepStore;
  incidentStore: IncidentStore;
  /** For the digest's links to open incidents' threads (a read). */
  client: SlackClient;
  /** Hands a message of no incident to the outbox: posted once under its name. */
  postInChannel(channel: string, name: string, message: ChannelMessage, threadTs?: string): Promise<void>;
  playbooks: readonly Playbook[];
  /** Tables that failed more than once in the retention window, for the digest. */
  recurring?(): Promise<RecurringDigest>;
  /** Injected evidence ports (tests); otherwise built from the config with the sweep's budgets. */
  ports?: EvidencePorts;
  /** Flink sources found at run time (Kubernetes discovery), read as the configured ones are. */
  flinkProviders?: readonly FlinkSourceProvider[];
  namespace?: string;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  now: () => number;
  log: Logger;
  onFailed?: (queue: string, job: Job | undefined, error: Error) => void;
  onError: (queue: string, error: Error) => void;
  /** A job left for a newer release. */
  onLeft?: (queue: string, job: Job, error: CodedError) => void;
  /** "Start the fix" from a digest: opens the table's incident as an alert would. */
  startFix(table: string, user: string, channel: string): Promise<StartFixOutcome>;
  /**
   * Queues an ephemeral answer to one person (the outbox sends it); with an incident, after that
   * incident's messages, so a link to its thread is there to give.
   */
  reply(channel: string, user: string, reply: EphemeralReply, incidentId?: string): Promise<void>;
}

/** Flink job lists and Connect connector lists are shared by a worker's tables for this long. */
const SHARED_LISTINGS_MS = 60_000;

async function startSweep(w: SweepWiring): Promise<SweepRuntime> {
  const { config } = w;
  const rates = config.bot.sweep.ratePerSecond;
  const ports = withSharedListings(
    w.ports ??
      createEvidencePorts(
        { ...config, prometheusUrl: undefined },
        {
          flinkProviders: w.flinkProviders,
          dispatchers: {
            flink: gatedDispatcher(rateWindow(w.redis, "flink", rates.flink, { namespace: w.namespace })),
            connect: gatedDispatcher(
              rateWindow(w.redis, "connect", rates.connect, { namespace: w.namespace }),
            ),
          },
        },
      ),
    SHARED_LISTINGS_MS,
  );
  const service = new SweepService({
    store: w.store,
    queue: w.queues,
    ports,
    bot: config.bot,
    playbooks: w.playbooks,
    incidentChannel: config.incidentChannel,
    sourceTimeoutMs: config.sourceTimeoutMs,
    now: w.now,
    log: w.log,
    openIncidents: async () => {
      const open = await w.incidentStore.listOpen(200);
      const links = await Promise.all(open.map((incident) => threadPermalink(w.client, incident)));
      return new Map<string, OpenIncidentRef>(
        open.map((incident, i) => [incident.table, { incidentId: incident.id, permalink: links[i] }]),
      );
    },
    ...(w.recurring ? { recurring: w.recurring } : {}),
    postDigest: async (sweepId, channel, digest) => {
      await w.postInChannel(channel, `digest-${sweepId}`, { kind: "digest", digest });
    },
    tell: (channel, user, text) => w.reply(channel, user, { kind: "text", text }),
  });
  const workers = startSweepWorkers(
    {
      connection: w.connection,
      prefix: w.queues.control.opts.prefix,
      names: w.queues.names,
      catalogPerSecond: rates.catalog,
      concurrency: w.concurrency,
      lockDurationMs: w.lockDurationMs,
      stalledIntervalMs: w.stalledIntervalMs,
      onFailed: w.onFailed,
      onError: w.onError,
      onLeft: w.onLeft,
    },
    {
      catalog: (job, lastAttempt) => service.runTask(job.data, lastAttempt, job.attemptsMade > 0),
      control: sweepControl({
        service,
        bot: config.bot,
        // Audits asked for from a digest are not part of the sweep: they read with the bot's own ports.
        auditPorts: w.ports ?? createEvidencePorts(config, { flinkProviders: w.flinkProviders }),
        sourceTimeoutMs: config.sourceTimeoutMs,
        now: w.now,
        startFix: w.startFix,
        postAudit: (channel, name, report, threadTs) =>
          w.postInChannel(channel, name, { kind: "audit", report }, threadTs),
        reply: w.reply,
      }),
    },
  );
  // Every worker process sets the same schedule id: one schedule, however many processes.
  await w.queues.schedule(config.bot.sweep.schedule);
  return { service, workers };
}

/** The catalog sweep as one part: its service, its workers and its weekly schedule. */
export function sweepPart(shared: Shared): Part & { runtime?: SweepRuntime } {
  const { config, options, metrics, log, connections, incidents, outbox, wallClock } = shared;
  const part: Part & { runtime?: SweepRuntime } = {
    name: "catalog sweep",
    async start() {
      part.runtime = await startSweep({
        config,
        redis: connections.redis,
        connection: connections.blocking,
        queues: shared.sweepQueues,
        store: shared.sweepStore,
        incidentStore: shared.store,
        recurring: async () => ({
          tables: recurringTables(await incidents.history.all()),
          days: config.bot.retention.resolvedDays,
        }),
        client: shared.client,
        postInChannel: async (channel, name, message, threadTs) => {
          const delivery = {
            kind: "channel-post",
            name,
            message,
            ...(threadTs ? { threadTs } : {}),
          } as const;
          await outbox.append(channelQueueId(channel), channel, wallClock(), delivery);
        },
        playbooks: shared.playbooks.playbooks,
        ports: options.ports,
        ...(shared.flinkDiscovery ? { flinkProviders: [shared.flinkDiscovery.provider] } : {}),
        namespace: options.namespace,
        concurrency: options.sweepConcurrency,
        lockDurationMs: options.lockDurationMs,
        stalledIntervalMs: options.stalledIntervalMs,
        now: shared.now,
        log,
        onFailed: (queue, job, error) => {
          metrics.jobOutcomes.inc({ queue, outcome: "failed" });
          log.warn({ queue, job: job?.id, err: error.message }, "job failed");
        },
        onError: (queue, error) => connections.errors.report(`worker ${queue}`, error),
        onLeft: shared.jobLeft,
        startFix: async (table, user, channel) =>
          (await import("../services/sweep/start-fix.js")).startFixFromSweep(incidents, table, user, channel),
        reply: async (channel, user, reply, incidentId) => {
          await incidents.slack.send({
            kind: "ephemeral",
            channel,
            user,
            reply,
            ...(incidentId ? { incidentId } : {}),
          });
        },
      });
    },
    async stop() {
      await part.runtime?.workers.close();
    },
  };
  return part;
}
