// The catalog sweep's part of a worker process: wires its rate-limited evidence ports, the service,
// the control jobs' processor (services/sweep/control.ts), the BullMQ workers and the weekly
// schedule. Its digest and audits go out through the Slack outbox.

import { createEvidencePorts } from "../adapters/evidence/from-config.js";
import { gatedDispatcher } from "../adapters/evidence/gated-dispatcher.js";
import { catalogLimiter, SweepControlJobSchema, SweepTaskSchema } from "../adapters/queue/sweep-queue.js";
import { isLastAttempt, startWorker } from "../adapters/queue/worker.js";
import { type ChannelMessage, channelQueueId } from "../adapters/slack/outbox/outbox.js";
import { threadPermalink } from "../adapters/slack/slack-jobs.js";
import { rateWindow } from "../adapters/store/window-counters.js";
import { recurringTables } from "../core/history/fleet.js";
import type { EphemeralReply } from "../core/jobs.js";
import type { OpenIncidentRef } from "../core/sweep/digest.js";
import type { EvidencePorts } from "../services/ports.js";
import { sweepControl } from "../services/sweep/control.js";
import { SweepService } from "../services/sweep/service.js";
import { withSharedListings } from "../services/sweep/shared-listings.js";
import type { SweepRuntime } from "./options.js";
import type { Part } from "./part.js";
import type { Shared } from "./shared.js";
import { workerSettings } from "./workers.js";

/** Flink job lists and Connect connector lists are shared by a worker's tables for this long. */
const SHARED_LISTINGS_MS = 60_000;

async function startSweep(shared: Shared): Promise<SweepRuntime> {
  const { config, options, incidents, outbox, wallClock } = shared;
  const queues = shared.sweepQueues;
  const redis = shared.connections.redis;
  const flinkProviders = shared.flinkDiscovery ? [shared.flinkDiscovery.provider] : undefined;
  const rates = config.bot.sweep.ratePerSecond;
  const rate = (source: "flink" | "connect") =>
    gatedDispatcher(rateWindow(redis, source, rates[source], { namespace: options.namespace }));
  const ports = withSharedListings(
    options.ports ??
      createEvidencePorts(
        // The sweep grades tables from the catalog, Flink and Connect; Prometheus is not asked.
        { ...config, sources: { ...config.sources, prometheus: [] } },
        { flinkProviders, dispatchers: { flink: rate("flink"), connect: rate("connect") } },
      ),
    SHARED_LISTINGS_MS,
  );
  // A message of no incident, posted once under its name.
  const postInChannel = async (channel: string, name: string, message: ChannelMessage, threadTs?: string) => {
    const delivery = { kind: "channel-post", name, message, ...(threadTs ? { threadTs } : {}) } as const;
    await outbox.append(channelQueueId(channel), channel, wallClock(), delivery);
  };
  // An ephemeral answer to one person; with an incident, after that incident's messages, so a
  // link to its thread is there to give.
  const reply = async (channel: string, user: string, reply: EphemeralReply, incidentId?: string) => {
    await incidents.slack.send({
      kind: "ephemeral",
      channel,
      user,
      reply,
      ...(incidentId ? { incidentId } : {}),
    });
  };
  const service = sweepService(shared, ports, postInChannel, reply);
  const settings = workerSettings(shared);
  const runControl = sweepControl({
    service,
    bot: config.bot,
    // Audits asked for from a digest are not part of the sweep: they read with the bot's own ports.
    auditPorts: options.ports ?? createEvidencePorts(config, { flinkProviders }),
    sourceTimeoutMs: config.sourceTimeoutMs,
    now: shared.now,
    startFix: async (table, user, channel) =>
      (await import("../services/sweep/start-fix.js")).startFixFromSweep(incidents, table, user, channel),
    postAudit: (channel, name, report, threadTs) =>
      postInChannel(channel, name, { kind: "audit", report }, threadTs),
    reply,
  });
  const control = startWorker(
    queues.names.control,
    SweepControlJobSchema,
    (data, { id, timestamp }) => runControl({ id, timestamp, data }),
    { concurrency: 2 },
    settings,
  );
  // Catalog tasks mostly wait on the network; every worker together stays within the catalog's budget.
  const catalog = startWorker(
    queues.names.catalog,
    SweepTaskSchema,
    (task, job) => service.runTask(task, isLastAttempt(job), job.attemptsMade > 0),
    { concurrency: options.sweepConcurrency ?? 16, limiter: catalogLimiter(rates.catalog) },
    settings,
  );
  // Every worker process sets the same schedule id: one schedule, however many processes.
  await queues.schedule(config.bot.sweep.schedule);
  return {
    service,
    workers: { close: async () => void (await Promise.all([control.close(), catalog.close()])) },
  };
}

/** The sweep's service: its digest and answers go out through the outbox. */
function sweepService(
  shared: Shared,
  ports: EvidencePorts,
  postInChannel: (channel: string, name: string, message: ChannelMessage) => Promise<void>,
  reply: (channel: string, user: string, reply: EphemeralReply) => Promise<void>,
): SweepService {
  const { config, incidents, log } = shared;
  return new SweepService({
    store: shared.sweepStore,
    queue: shared.sweepQueues,
    ports,
    bot: config.bot,
    playbooks: shared.playbooks.playbooks,
    incidentChannel: config.incidentChannel,
    sourceTimeoutMs: config.sourceTimeoutMs,
    now: shared.now,
    log,
    openIncidents: async () => {
      const open = await shared.store.listOpen(200);
      const links = await Promise.all(open.map((incident) => threadPermalink(shared.client, incident)));
      return new Map<string, OpenIncidentRef>(
        open.map((incident, i) => [incident.table, { incidentId: incident.id, permalink: links[i] }]),
      );
    },
    recurring: async () => ({
      tables: recurringTables(await incidents.history.all()),
      days: config.bot.retention.resolvedDays,
    }),
    postDigest: async (sweepId, channel, digest) => {
      await postInChannel(channel, `digest-${sweepId}`, { kind: "digest", digest });
    },
    tell: (channel, user, text) => reply(channel, user, { kind: "text", text }),
  });
}

/** The catalog sweep as one part: its service, its workers and its weekly schedule. */
export function sweepPart(shared: Shared): Part & { runtime?: SweepRuntime } {
  const part: Part & { runtime?: SweepRuntime } = {
    name: "catalog sweep",
    async start() {
      part.runtime = await startSweep(shared);
    },
    async stop() {
      await part.runtime?.workers.close();
    },
  };
  return part;
}
