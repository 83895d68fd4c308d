// The Bolt app, used through its public surface: our own receivers (receiver/http.ts verifies
// every Slack signature; receiver/socket.ts runs Socket Mode) hand verified events to
// app.processEvent, with the alert webhooks and health routes on the same port. Listeners record
// the interaction as a queued job and acknowledge; a slash command goes from the verification
// straight to its handler, is acknowledged first and recorded in the command inbox after (see
// command-listener.ts). The workers do the rest. The one Slack call a
// listener makes itself is views.open for a click's modal, whose trigger expires in 3 s: it opens
// a placeholder that a worker fills in. Whatever the receiver sends (acks, response_url replies,
// that placeholder) is scrubbed of secrets and internal addresses like everything else.

import type { BlockAction, ButtonAction, SlashCommand } from "@slack/bolt";
import { App, type Receiver, type ReceiverEvent } from "@slack/bolt";
import type { Logger } from "pino";
import type { AlertEvent } from "../../core/incident/model.js";
import { asCodedError } from "../../errors.js";
import type { Remediation } from "../../services/remediation/remediation.js";
import type { FailingSource } from "../evidence/source-watch.js";
import type { HealthState } from "../http/health.js";
import type { BotMetrics } from "../http/metrics.js";
import { type RouteServer, serveRoutes } from "../http/route-server.js";
import { healthRoutes } from "../http/routes.js";
import { createWebhookHandler } from "../intake/webhook.js";
import type { BotQueues } from "../queue/queues.js";
import type { FirstTime } from "../redis/batched-first-time.js";
import type { IncidentStore } from "../store/incident-store.js";
import { boltLogger } from "./bolt-logger.js";
import { type CommandListenerDeps, createCommandHandler, isOurCommand } from "./command-listener.js";
import { mountListenerRouter } from "./listener-router.js";
import { placeholderId, renderPlaceholder } from "./placeholder.js";
import { registerPlaybookListeners } from "./playbook-listeners.js";
import { type EventHandler, SlackHttpReceiver } from "./receiver/http.js";
import { SlackSocketReceiver } from "./receiver/socket.js";
import { recorder, tellNotRecorded } from "./record.js";
import { ACTION_IDS } from "./render/action-value.js";
import type { ModalView } from "./render/block-kit.js";
import { SHOW_EVIDENCE_ACTION } from "./render/diagnosis.js";
import type { Renderers } from "./renderers.js";
import { replayGuard } from "./replay-guard.js";
import { type FetchFunction, respondVia } from "./response-url.js";
import { registerSweepListeners, type SweepListenerDeps } from "./sweep-slack.js";
import type { ThreadPeople } from "./thread-people.js";
import { createScrubber, type ScrubSettings, scrubbingFetch, slackClientOptions } from "./web-client.js";

export interface BotAppOptions {
  slack: {
    botToken?: string;
    signingSecret?: string;
    appToken?: string;
    apiUrl?: string;
    mode: "http" | "socket";
  };
  /** Accepted webhook tokens (the new and the old one during a rotation). */
  alertWebhookTokens?: readonly string[];
  webhookBodyLimitBytes?: number;
  /** The evidence modal's fill, a BullMQ job (everything else the workers say goes through the outbox). */
  queues: Pick<BotQueues, "enqueueSlack">;
  /** Where slash commands are recorded (and repeat deliveries dropped) for the workers. */
  inbox: CommandListenerDeps["inbox"];
  store: IncidentStore;
  /** The replay guard's check: true the first time a delivery's key is seen. */
  firstTime: FirstTime;
  render: Renderers;
  metrics: BotMetrics;
  log: Logger;
  pingRedis: () => Promise<unknown>;
  /** The Slack checks /readyz reports besides Redis (adapters/http/health.ts). */
  health?: HealthState;
  /** Another process's metrics served in the same scrape (`start`'s worker child). */
  otherMetrics?: () => Promise<unknown[]>;
  /** Evidence sources failing now, shown in /readyz as detail. */
  failingSources?: () => FailingSource[];
  acceptAlerts: (alerts: AlertEvent[]) => Promise<{ accepted: number; ignored: number }>;
  /** Playbook buttons and the apply modal; without it they are only acknowledged. */
  remediation?: Remediation;
  /** The digest's buttons; without it they are only acknowledged. */
  sweep?: SweepListenerDeps;
  /** Real time, for Slack's signature window (default Date.now), whatever clock incidents read. */
  wallClock?: () => number;
  /**
   * Whether the Redis connection is up (a status check, no round trip). Interactions are recorded
   * only when it is; otherwise the person is told at once. Default: always.
   */
  redisReady?: () => boolean;
  /** How long recording an interaction may take before the person is told it failed. */
  recordTimeoutMs?: number;
  /** Hands an App Home publish to the outbox (its poster publishes it). */
  queueHome: (user: string) => Promise<void>;
  /** People's replies in incident threads and "I'm on it" (without it, neither is kept). */
  people?: ThreadPeople;
  /** Secrets and internal addresses kept out of what the receiver sends to Slack. */
  scrub?: ScrubSettings;
}

export interface BotApp {
  app: App;
  /** Starts listening (HTTP mode) or connects (Socket Mode; routes still served on `port`). */
  start(port: number): Promise<{ port: number }>;
  stop(): Promise<void>;
  /** Resolves once no event's listeners are still at work in this receiver. */
  settled(): Promise<void>;
}

/** The event with an ack whose answer is scrubbed: an ack's body goes straight back to Slack. */
function withScrubbedAck(event: ReceiverEvent, scrub: (<T>(value: T) => T) | undefined): ReceiverEvent {
  if (!scrub) return event;
  return {
    ...event,
    ack: (response?: unknown) => event.ack(response === undefined ? undefined : scrub(response)),
  };
}

export function createBotApp(options: BotAppOptions): BotApp {
  const { log, metrics } = options;
  const webhook = (kind: "alertmanager" | "grafana") =>
    createWebhookHandler({
      kind,
      tokens: options.alertWebhookTokens,
      bodyLimitBytes: options.webhookBodyLimitBytes,
      accept: async (alerts) => {
        const outcome = await options.acceptAlerts(alerts);
        metrics.alertsReceived.inc({ source: kind, outcome: "accepted" }, outcome.accepted);
        metrics.alertsReceived.inc({ source: kind, outcome: "ignored" }, outcome.ignored);
        return { accepted: outcome.accepted, ignored: outcome.ignored };
      },
      onError: (error) => log.error({ err: error, route: kind }, "alert intake failed"),
      onReject: (reason) => metrics.webhookRejected.inc({ source: kind, reason }),
      onTruncated: (count) => {
        metrics.alertsReceived.inc({ source: kind, outcome: "truncated_by_sender" }, count);
        log.warn({ route: kind, truncatedAlerts: count }, "the sender left alerts out (max_alerts)");
      },
    });
  const customRoutes = [
    { path: "/webhooks/alertmanager", method: "POST", handler: webhook("alertmanager") },
    { path: "/webhooks/grafana", method: "POST", handler: webhook("grafana") },
    ...healthRoutes({
      pingRedis: options.pingRedis,
      registry: metrics.registry,
      ...(options.health ? { health: options.health } : {}),
      ...(options.otherMetrics ? { otherMetrics: options.otherMetrics } : {}),
      ...(options.failingSources ? { failingSources: options.failingSources } : {}),
    }),
  ];

  const logger = boltLogger(log);
  const scrub = options.scrub ? createScrubber(options.scrub) : undefined;
  const replyFetch: FetchFunction = options.scrub ? scrubbingFetch(options.scrub) : fetch;
  // Events whose listeners are still at work (after the ack), for settled().
  const inFlight = new Set<Promise<void>>();
  // Every verified event: `/iceberg` to its handler (see answerCommand), the rest to Bolt.
  const handle: EventHandler = (event, process) => {
    const scrubbed = withScrubbedAck(event, scrub);
    const running = isOurCommand(event.body) ? answerCommand(event.body, scrubbed.ack) : process(scrubbed);
    inFlight.add(running);
    running.then(
      () => inFlight.delete(running),
      () => inFlight.delete(running),
    );
    return running;
  };
  let receiver: Receiver;
  let httpReceiver: SlackHttpReceiver | undefined;
  let socketReceiver: SlackSocketReceiver | undefined;
  if (options.slack.mode === "socket") {
    // The routes are served by serveRoutes in start(), not by the receiver (see route-server.ts).
    socketReceiver = new SlackSocketReceiver({
      appToken: options.slack.appToken ?? "",
      apiUrl: options.slack.apiUrl,
      handle,
      logger,
      log,
    });
    receiver = socketReceiver;
  } else {
    httpReceiver = new SlackHttpReceiver({
      signingSecret: options.slack.signingSecret ?? "",
      routes: customRoutes,
      handle,
      now: options.wallClock ?? Date.now,
      log,
    });
    receiver = httpReceiver;
  }

  const app = new App({
    receiver,
    // A fixed authorization: with only `token`, Bolt calls auth.test on every request before the
    // listener runs, which would put a Slack round trip in front of every ack.
    authorize: async () => ({ botToken: options.slack.botToken }),
    logger,
    // The listeners' client and respond() both send with this fetch.
    clientOptions: {
      ...slackClientOptions({ apiUrl: options.slack.apiUrl, logger }),
      ...(options.scrub ? { fetch: replyFetch } : {}),
    },
    ignoreSelf: false,
    // Bolt's default conversation store runs on every request before the listener (it showed in
    // ack profiles) and nothing here reads it.
    convoStore: false,
  });

  const record = recorder({
    ...(options.redisReady ? { ready: options.redisReady } : {}),
    ...(options.recordTimeoutMs !== undefined ? { timeoutMs: options.recordTimeoutMs } : {}),
    log,
  });

  const { firstTime } = options;
  // Slack retries and replayed requests: one event, click, submission or command is handled once.
  // With Redis away the check is skipped rather than waited for (the listener then tells the person).
  // Applied to the listeners of events, clicks and submissions, not to every request: a slash
  // command's repeat is dropped by the command inbox, and Bolt runs global middleware even for
  // requests no listener wants.
  const guard = replayGuard({
    firstTime: (scope, key, ttl) =>
      record.ready() ? firstTime(scope, key, ttl) : Promise.reject(new Error("redis unavailable")),
    log,
  });

  // `/iceberg` goes from our verification straight to its handler (see `handle` above): Bolt's
  // listener pipeline would first build a client, say, respond and context and run every listener's
  // middleware, about a quarter of the receiver's CPU per command, and the command uses none of it.
  const handleCommand = createCommandHandler({ inbox: options.inbox, render: options.render, record, log });
  const answerCommand = (command: SlashCommand, ack: ReceiverEvent["ack"]) =>
    handleCommand({ command, ack, respond: respondVia(replyFetch, command.response_url) }).catch(
      (error: unknown) => log.error({ err: asCodedError(error).message }, "slack command failed"),
    );

  app.event("app_home_opened", guard, async ({ event }) => {
    if (event.tab !== undefined && event.tab !== "home") return;
    await options.queueHome(event.user);
  });

  // What people write in an incident's thread belongs to its story (the postmortem's timeline).
  // Only a person's new reply: not the bot's own messages, not edits or deletions (subtypes).
  const people = options.people;
  if (people) {
    app.event("message", guard, async ({ event }) => {
      const m = event as unknown as Record<string, unknown>;
      if (m.subtype !== undefined || m.bot_id !== undefined) return;
      const { channel, thread_ts: threadTs, ts, user, text } = m;
      if (typeof threadTs !== "string" || threadTs === ts) return;
      if (typeof channel !== "string" || typeof ts !== "string" || typeof user !== "string") return;
      if (typeof text !== "string") return;
      await people
        .reply({ channel, threadTs, ts, user, text })
        .catch((error: unknown) => log.warn({ err: asCodedError(error).message }, "thread reply not kept"));
    });
  }

  // A click's modal: opened now with its trigger (it expires in 3 s), filled in by a worker.
  const openPlaceholder = async (triggerId: string, view: ModalView) => {
    await app.client.views.open({ token: options.slack.botToken, trigger_id: triggerId, view });
  };
  // Buttons and modal submissions: one Bolt listener each, dispatching by id.
  const router = mountListenerRouter(app, guard);
  // "Show all evidence" under a cut diagnosis: the whole report in a modal, read by a worker.
  router.action<BlockAction<ButtonAction>>(SHOW_EVIDENCE_ACTION, async ({ ack, body, action, respond }) => {
    await ack();
    const [incidentId = "", n = ""] = (action.value ?? "").split("|");
    if (incidentId === "" || !(Number(n) >= 1) || !Number.isInteger(Number(n))) return;
    const viewId = placeholderId("evidence", body.trigger_id);
    const recorded = await record.record("evidence", () =>
      options.queues.enqueueSlack({ kind: "evidence", incidentId, n: Number(n), viewId }),
    );
    if (!recorded) {
      await tellNotRecorded(respond, log);
      return;
    }
    await openPlaceholder(
      body.trigger_id,
      renderPlaceholder(viewId, "All evidence", "Reading the diagnosis…"),
    ).catch((error: unknown) => log.error({ err: asCodedError(error).message }, "evidence modal not opened"));
  });
  if (options.remediation)
    registerPlaybookListeners(router, options.remediation, log, record, openPlaceholder);
  // "I'm on it" on the card: whoever presses it first handles the incident.
  router.action<BlockAction<ButtonAction>>(ACTION_IDS.claim, async ({ ack, body, action, respond }) => {
    await ack();
    const incidentId = claimedIncident(action.value);
    if (!people || incidentId === undefined) return;
    const recorded = await record.record("claim", () => people.claim(incidentId, body.user.id));
    if (!recorded) await tellNotRecorded(respond, log);
  });
  if (options.sweep) registerSweepListeners(router, options.sweep, log, record);

  app.error(async (error) => {
    log.error({ err: error }, "slack listener failed");
  });

  let routeServer: RouteServer | undefined;
  return {
    app,
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async start(port) {
      if (httpReceiver) {
        await httpReceiver.start(port);
        return { port: httpReceiver.port() ?? port };
      }
      routeServer = await serveRoutes(customRoutes, port);
      try {
        await socketReceiver?.start();
      } catch (error) {
        await routeServer.close();
        throw error;
      }
      return { port: routeServer.port };
    },
    async stop() {
      await app.stop().catch(() => {});
      await routeServer?.close();
    },
  };
}

/** The incident an "I'm on it" button names, or undefined for a value that is not ours. */
function claimedIncident(value: string | undefined): string | undefined {
  try {
    const parsed = JSON.parse(value ?? "") as { incidentId?: unknown };
    return typeof parsed.incidentId === "string" && parsed.incidentId.length > 0
      ? parsed.incidentId
      : undefined;
  } catch {
    return undefined;
  }
}
