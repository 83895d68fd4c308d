// The receiver part (`serve`, `start`): Slack's requests and the alert webhooks on one port. It
// verifies, acknowledges and records; the workers do the rest.

import type { FailingSource } from "../adapters/evidence/source-watch.js";
import { batchedFirstTime } from "../adapters/redis/batched-first-time.js";
import { checkPrimary } from "../adapters/redis/connection.js";
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
  const { config, options, connections, store, sweepQueues, confirmDurable } = shared;
  const { redis } = connections;
  const app = createBotApp({
    slack: config.slack,
    alertWebhookTokens: config.alertWebhookTokens,
    webhookBodyLimitBytes: options.webhookBodyLimitBytes,
    // The producers and the store use this connection.
    redisReady: () => redis.status === "ready",
    queues: shared.queues,
    inbox: shared.commandInbox,
    store,
    // A burst of Slack requests checks for replays in one round trip per event-loop turn.
    firstTime: batchedFirstTime(redis, (scope, key) => store.keys.seen(scope, key)),
    render: shared.render,
    metrics: shared.metrics,
    log: shared.log,
    wallClock: shared.wallClock,
    remediation: shared.remediation,
    sweep: {
      requestAudit: (request) => sweepQueues.requestAudit(request),
      requestFix: (request) => sweepQueues.requestFix(request),
    },
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
    pingRedis: () => checkPrimary(redis, config.redis, store.keys.sequence()),
    health: shared.health,
    ...(child ? { otherMetrics: child.metrics } : {}),
    failingSources: () => [...shared.sourceWatch.failing(), ...(child?.failingSources() ?? [])],
    acceptAlerts: async (alerts) => {
      const outcome = await acceptAlerts(shared.incidents, alerts);
      // Answer only once the replicas REDIS_URL asks for hold the alert: a failover right
      // after the answer must not lose it (the sender retries a 5xx).
      await confirmDurable();
      return outcome;
    },
  });
  const part: ReceiverPart = {
    name: "receiver",
    app,
    async start() {
      ({ port: part.port } = await app.start(options.port ?? config.port));
      shared.log.info(
        { port: part.port, mode: config.slack.mode, role: options.role },
        "iceberg-bot listening",
      );
    },
    async stop() {
      await app.stop();
      shared.log.info({ role: options.role }, "receiver stopped");
    },
  };
  return part;
}
