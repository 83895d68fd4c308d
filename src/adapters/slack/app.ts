// The Bolt app, used through its public surface: our own receivers (receiver/http.ts, a route of
// the bot's one server, verifies every Slack signature; receiver/socket.ts runs Socket Mode) hand
// verified events to app.processEvent, once each (the replay guard is handed in). Listeners record
// the interaction as a queued job and acknowledge; a slash command goes from the verification
// straight to its handler, is acknowledged first and recorded in the command inbox after (see
// command-listener.ts). The workers do the rest. The one Slack call a
// listener makes itself is views.open for a click's modal, whose trigger expires in 3 s: it opens
// a placeholder that a worker fills in. Whatever the receiver sends (acks, response_url replies,
// that placeholder) is scrubbed of secrets and internal addresses like everything else.

import type { BlockAction, ButtonAction, SlashCommand } from "@slack/bolt";
import { App, type ReceiverEvent } from "@slack/bolt";
import type { Logger } from "pino";
import { asCodedError } from "../../errors.js";
import type { RemediationScheduler } from "../../services/ports.js";
import type { Route } from "../http/edge.js";
import type { BotQueues } from "../queue/queues.js";
import { boltLogger } from "./bolt-logger.js";
import { type CommandListenerDeps, createCommandHandler, isOurCommand } from "./command-listener.js";
import { mountListenerRouter } from "./listener-router.js";
import { placeholderId, renderPlaceholder } from "./placeholder.js";
import { type EventHandler, SlackHttpReceiver } from "./receiver/http.js";
import { SlackSocketReceiver } from "./receiver/socket.js";
import { type Recorder, recorder, tellNotRecorded } from "./record.js";
import { registerRemediationListeners } from "./remediation-listeners.js";
import { ACTION_IDS } from "./render/action-value.js";
import type { ModalView } from "./render/block-kit.js";
import { SHOW_EVIDENCE_ACTION } from "./render/diagnosis.js";
import { respondVia } from "./response-url.js";
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
  /** The evidence modal's fill, a BullMQ job (everything else the workers say goes through the outbox). */
  queues: Pick<BotQueues, "enqueueSlack">;
  /** Where slash commands are recorded (and repeat deliveries dropped) for the workers. */
  inbox: CommandListenerDeps["inbox"];
  /**
   * Whether an event, click or submission is new (adapters/http/replay-guard.ts): a repeat is
   * acknowledged and goes no further. Slash commands do not pass here (the command inbox drops
   * their repeats).
   */
  firstDelivery: (event: ReceiverEvent) => Promise<boolean>;
  log: Logger;
  /** Where playbook buttons and the apply modal are recorded. */
  remediation: RemediationScheduler;
  /** The digest's buttons. */
  sweep: SweepListenerDeps;
  /** Real time, for Slack's signature window, whatever clock incidents read. */
  wallClock: () => number;
  /**
   * Whether the Redis connection is up (a status check, no round trip). Interactions are recorded
   * only when it is; otherwise the person is told at once.
   */
  redisReady: () => boolean;
  /** Hands an App Home publish to the outbox (its poster publishes it). */
  queueHome: (user: string) => Promise<void>;
  /** People's replies in incident threads and "I'm on it". */
  people: ThreadPeople;
  /** Secrets and internal addresses kept out of what the receiver sends to Slack. */
  scrub: ScrubSettings;
}

export interface BotApp {
  app: App;
  /** What the bot's one server serves for Slack: /slack/events in HTTP mode, nothing in Socket Mode. */
  routes: Route[];
  /** Connects to Slack in Socket Mode (nothing to do over HTTP). */
  connect(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once no event's listeners are still at work in this receiver. */
  settled(): Promise<void>;
}

export function createBotApp(options: BotAppOptions): BotApp {
  const { log } = options;
  const logger = boltLogger(log);
  const scrub = createScrubber(options.scrub);
  const replyFetch = scrubbingFetch(options.scrub);
  // Events whose listeners are still at work (after the ack), for settled().
  const inFlight = new Set<Promise<void>>();
  // Every verified event: `/iceberg` to its handler (see answerCommand), the rest to Bolt.
  const handle: EventHandler = (event, process) => {
    // An ack's body goes straight back to Slack: it is scrubbed like everything else.
    const scrubbed: ReceiverEvent = {
      ...event,
      ack: (response?: unknown) => event.ack(response === undefined ? undefined : scrub(response)),
    };
    const running = isOurCommand(event.body)
      ? answerCommand(event.body, scrubbed.ack)
      : options.firstDelivery(scrubbed).then((first) => (first ? process(scrubbed) : undefined));
    inFlight.add(running);
    running.then(
      () => inFlight.delete(running),
      () => inFlight.delete(running),
    );
    return running;
  };
  // Slack's requests over HTTP (a route of the edge) or over Socket Mode's socket.
  const receiver =
    options.slack.mode === "socket"
      ? new SlackSocketReceiver({
          appToken: options.slack.appToken ?? "",
          apiUrl: options.slack.apiUrl,
          handle,
          logger,
          log,
        })
      : new SlackHttpReceiver({
          signingSecret: options.slack.signingSecret ?? "",
          handle,
          now: options.wallClock,
          log,
        });

  const app = new App({
    receiver,
    // A fixed authorization: with only `token`, Bolt calls auth.test on every request before the
    // listener runs, which would put a Slack round trip in front of every ack.
    authorize: async () => ({ botToken: options.slack.botToken }),
    logger,
    // The listeners' client and respond() both send with this fetch.
    clientOptions: { ...slackClientOptions({ apiUrl: options.slack.apiUrl, logger }), fetch: replyFetch },
    ignoreSelf: false,
    // Bolt's default conversation store runs on every request before the listener (it showed in
    // ack profiles) and nothing here reads it.
    convoStore: false,
  });

  const record = recorder(options.redisReady, log);

  // `/iceberg` goes from our verification straight to its handler (see `handle` above): Bolt's
  // listener pipeline would first build a client, say, respond and context and run every listener's
  // middleware, about a quarter of the receiver's CPU per command, and the command uses none of it.
  const handleCommand = createCommandHandler({ inbox: options.inbox, record, log });
  const answerCommand = (command: SlashCommand, ack: ReceiverEvent["ack"]) =>
    handleCommand({ command, ack, respond: respondVia(replyFetch, command.response_url) }).catch(
      (error: unknown) => log.error({ err: asCodedError(error).message }, "slack command failed"),
    );

  registerListeners(app, options, record);
  app.error(async (error) => {
    log.error({ err: error }, "slack listener failed");
  });

  return {
    app,
    routes: receiver instanceof SlackHttpReceiver ? [receiver.route] : [],
    async settled() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    async connect() {
      // Over HTTP there is nothing to start: the edge owns the port.
      await receiver.start();
    },
    async stop() {
      await app.stop().catch(() => {});
    },
  };
}

/** Events, buttons and modal submissions: each acknowledged, recorded for a worker, or told it was not. */
function registerListeners(app: App, options: BotAppOptions, record: Recorder): void {
  const { log } = options;
  app.event("app_home_opened", async ({ event }) => {
    if (event.tab !== undefined && event.tab !== "home") return;
    await options.queueHome(event.user);
  });

  // What people write in an incident's thread belongs to its story (the postmortem's timeline).
  // Only a person's new reply: not the bot's own messages, not edits or deletions (subtypes).
  const { people } = options;
  app.event("message", async ({ event }) => {
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

  // A click's modal: opened now with its trigger (it expires in 3 s), filled in by a worker.
  const openPlaceholder = async (triggerId: string, view: ModalView) => {
    await app.client.views.open({ token: options.slack.botToken, trigger_id: triggerId, view });
  };
  // Buttons and modal submissions: one Bolt listener each, dispatching by id.
  const router = mountListenerRouter(app);
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
  registerRemediationListeners(router, options.remediation, log, record, openPlaceholder);
  // "I'm on it" on the card: whoever presses it first handles the incident.
  router.action<BlockAction<ButtonAction>>(ACTION_IDS.claim, async ({ ack, body, action, respond }) => {
    await ack();
    const incidentId = claimedIncident(action.value);
    if (incidentId === undefined) return;
    const recorded = await record.record("claim", () => people.claim(incidentId, body.user.id));
    if (!recorded) await tellNotRecorded(respond, log);
  });
  registerSweepListeners(router, options.sweep, log, record);
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
