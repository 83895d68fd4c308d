// The receiver part (`serve`, `start`): the bot's one HTTP server with Slack's requests (or, in
// Socket Mode, Slack's socket beside it), the alert webhooks, health and metrics. It verifies,
// acknowledges and records; the workers do the rest.

import type { FailingSource } from "../adapters/evidence/source-watch.js";
import { type Edge, serveEdge } from "../adapters/http/edge.js";
import { replayGuard } from "../adapters/http/replay-guard.js";
import { healthRoutes } from "../adapters/http/routes.js";
import { alertWebhookRoutes } from "../adapters/http/webhook.js";
import { batchedFirstTime } from "../adapters/redis/batched-first-time.js";
import { type BotApp, createBotApp } from "../adapters/slack/app.js";
import { homeQueueId } from "../adapters/slack/outbox/outbox.js";
import { threadPeople } from "../adapters/slack/thread-people.js";
import { PeopleStore } from "../adapters/store/people-store.js";
import { secretValues } from "../config.js";
import { acceptAlerts } from "../services/alerts.js";
import type { Part } from "./part.js";
import type { Shared } from "./shared.js";

export interface ReceiverPart extends Part {
  app: BotApp;
  /** The port it listens on, once started. */
  port?: number;
}

/**
 * `child`: what `start`'s worker process reports, served with the receiver's own: its metrics in
 * the same scrape, the sources failing in its diagnoses in /readyz.
 */
export function receiverPart(
  shared: Shared,
  child?: { metrics: () => Promise<unknown[]>; failingSources: () => FailingSource[] },
): ReceiverPart {
  const { config, options, connections, store, sweepQueues, log } = shared;
  const { redis } = connections;
  // The producers and the store use this connection.
  const redisReady = () => redis.status === "ready";
  // A burst of Slack requests checks for replays in one round trip per event-loop turn.
  const firstTime = batchedFirstTime(redis, (scope, key) => store.keys.seen(scope, key));
  const app = createBotApp({
    slack: config.slack,
    redisReady,
    queues: shared.queues,
    inbox: shared.commandInbox,
    // With Redis away the check is skipped rather than waited for (the listener then tells the person).
    firstDelivery: replayGuard({
      firstTime: (scope, key, ttl) =>
        redisReady() ? firstTime(scope, key, ttl) : Promise.reject(new Error("redis unavailable")),
      log,
    }),
    log,
    wallClock: shared.wallClock,
    remediation: shared.remediationQueue,
    sweep: sweepQueues,
    // What the receiver itself sends (acks, response_url replies, views it opens) is scrubbed
    // like everything the workers send.
    scrub: { secrets: secretValues(config), addresses: shared.addresses },
    // Published by the outbox's poster, retried through a Slack outage.
    queueHome: async (user) => {
      await shared.outbox.append(homeQueueId(user), "", shared.wallClock(), { kind: "home", user });
    },
    // People's replies in incident threads, and "I'm on it" (an edit of the card through the outbox).
    people: threadPeople({
      people: new PeopleStore(redis, store.keys),
      store,
      editCard: async (incident) => {
        await shared.outbox.append(incident.id, incident.channel, shared.wallClock(), { kind: "card" });
      },
      now: shared.now,
    }),
  });
  const routes = [...app.routes, ...alertAndHealthRoutes(shared, child)];
  let edge: Edge | undefined;
  const part: ReceiverPart = {
    name: "receiver",
    app,
    async start() {
      edge = await serveEdge(routes, options.port ?? config.port);
      try {
        await app.connect();
      } catch (error) {
        await edge.close();
        throw error;
      }
      part.port = edge.port;
      log.info({ port: part.port, mode: config.slack.mode, role: options.role }, "iceberg-bot listening");
    },
    async stop() {
      await app.stop();
      await edge?.close();
      log.info({ role: options.role }, "receiver stopped");
    },
  };
  return part;
}

/** The alert webhooks, health and metrics: the edge's routes besides Slack's. */
function alertAndHealthRoutes(shared: Shared, child: Parameters<typeof receiverPart>[1]) {
  const { config, options, metrics, log } = shared;
  return [
    ...alertWebhookRoutes({
      tokens: config.alertWebhookTokens,
      bodyLimitBytes: options.webhookBodyLimitBytes,
      metrics,
      log,
      accept: async (alerts) => {
        const outcome = await acceptAlerts(shared.incidents, alerts);
        // Answer only once the replicas REDIS_URL asks for hold the alert: a failover right
        // after the answer must not lose it (the sender retries a 5xx).
        await shared.confirmDurable();
        return outcome;
      },
    }),
    ...healthRoutes({
      pingRedis: shared.pingRedis,
      registry: metrics.registry,
      health: shared.health,
      ...(child ? { otherMetrics: child.metrics } : {}),
      failingSources: () => [...shared.sourceWatch.failing(), ...(child?.failingSources() ?? [])],
    }),
  ];
}
