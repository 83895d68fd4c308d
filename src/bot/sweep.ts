// The catalog sweep's part of a worker process: wires its rate-limited evidence ports, the service,
// the control jobs' processor (services/sweep/control.ts), the BullMQ workers and the weekly
// schedule. Its digest and audits go out through the Slack outbox.

import type { Worker } from "bullmq";
import { createEvidencePorts } from "../adapters/evidence/from-config.js";
import { gatedDispatcher } from "../adapters/evidence/gated-dispatcher.js";
import { catalogLimiter, SweepControlJobSchema, SweepTaskSchema } from "../adapters/queue/sweep-queue.js";
import { isLastAttempt, startWorker } from "../adapters/queue/worker.js";
import { type ChannelMessage, channelQueueId } from "../adapters/slack/outbox/outbox.js";
import { threadPermalink } from "../adapters/slack/slack-jobs.js";
import { rateWindow } from "../adapters/store/window-counters.js";
import { recurringTables } from "../core/history/fleet.js";
import type { OpenIncidentRef } from "../core/sweep/digest.js";
import { sweepControl } from "../services/sweep/control.js";
import { SweepService } from "../services/sweep/service.js";
import { withSharedListings } from "../services/sweep/shared-listings.js";
import type { Part } from "./part.js";
import type { Shared } from "./shared.js";
import { workerSettings } from "./workers.js";

/** Flink job lists and Connect connector lists are shared by a worker's tables for this long. */
const SHARED_LISTINGS_MS = 60_000;

/** The catalog sweep as one part: its service, its workers and its weekly schedule. */
export function sweepPart(shared: Shared): Part & { runtime?: { service: SweepService } } {
  const { config, options, incidents, outbox, wallClock } = shared;
  let workers: Worker[] = [];
  const part: Part & { runtime?: { service: SweepService } } = {
    name: "catalog sweep",
    async start() {
      const queues = shared.sweepQueues;
      const flinkProviders = shared.flinkDiscovery ? [shared.flinkDiscovery.provider] : undefined;
      const rates = config.bot.sweep.ratePerSecond;
      const rate = (source: "flink" | "connect") =>
        gatedDispatcher(
          rateWindow(shared.connections.redis, source, rates[source], { namespace: options.namespace }),
        );
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
      const postInChannel = async (
        channel: string,
        name: string,
        message: ChannelMessage,
        threadTs?: string,
      ) => {
        const delivery = { kind: "channel-post", name, message, ...(threadTs ? { threadTs } : {}) } as const;
        await outbox.append(channelQueueId(channel), channel, wallClock(), delivery);
      };
      const service = new SweepService({
        store: shared.sweepStore,
        queue: queues,
        ports,
        bot: config.bot,
        playbooks: shared.playbooks.playbooks,
        incidentChannel: config.incidentChannel,
        sourceTimeoutMs: config.sourceTimeoutMs,
        now: shared.now,
        log: shared.log,
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
        postDigest: (sweepId, channel, digest) =>
          postInChannel(channel, `digest-${sweepId}`, { kind: "digest", digest }),
        slack: incidents.slack,
      });
      const settings = workerSettings(shared);
      const control = startWorker(
        queues.names.control,
        SweepControlJobSchema,
        sweepControl({
          service,
          incidents,
          // Audits asked for from a digest are not part of the sweep: they read with the bot's own ports.
          auditPorts: options.ports ?? createEvidencePorts(config, { flinkProviders }),
          sourceTimeoutMs: config.sourceTimeoutMs,
          postAudit: (channel, name, report, threadTs) =>
            postInChannel(channel, name, { kind: "audit", report }, threadTs),
        }),
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
      workers = [control, catalog];
      part.runtime = { service };
      // Every worker process sets the same schedule id: one schedule, however many processes.
      await queues.schedule(config.bot.sweep.schedule);
    },
    async stop() {
      await Promise.all(workers.map((worker) => worker.close()));
    },
  };
  return part;
}
