// The only sender of the outbox's entries. One attempt is one request (the Web client's own
// retries are off); a failed attempt waits with capped exponential backoff (or Slack's
// Retry-After) and is tried again for as long as `giveUpAfterMs` allows. A post whose outcome is
// unknown (timeout, reset, 5xx) is looked for in the thread by the outbox id in its metadata
// before it is posted again, so it lands exactly once. Entries of one incident go in order.
// The incident's root (its status card) is posted by this poster too, before anything that
// threads under it; a root whose answer was lost is looked for in the channel's recent history.
// Commit timelines are shared by this poster too, once each (a lost upload is looked for in the
// thread by its file name), best effort: a picture that fails is logged and passed over.

import type { TimelineChart } from "../../../core/chart/timeline.js";
import type { Postmortem } from "../../../core/history/postmortem.js";
import type { Incident } from "../../../core/incident/model.js";
import type { EphemeralReply } from "../../../core/jobs.js";
import { ErrorCode, isCodedError } from "../../../errors.js";
import type { LogLike } from "../../../services/incident/deps.js";
import type { TimelineFile } from "../../../services/ports.js";
import type { IncidentStore } from "../../store/incident-store.js";
import { findInPages } from "../find-in-pages.js";
import { type PostmortemPlace, publishPostmortem, renderPostmortemNote } from "../postmortem-slack.js";
import type { SlackMessage } from "../render/block-kit.js";
import { context } from "../render/blocks.js";
import { renderProposal, renderVerification } from "../render/index.js";
import { escapeMrkdwn } from "../render/limits.js";
import { renderNotice, renderProposalNote } from "../render/walk-notice.js";
import type { TimelinePoster } from "../upload.js";
import { noteMessage } from "../walk-slack.js";
import type { SlackClient } from "../web-client.js";
import type {
  Attempt,
  ChannelMessage,
  OutboxDelivery,
  OutboxMessage,
  SlackOutbox,
  SlackOutboxEntry,
} from "./outbox.js";

export const OUTBOX_EVENT_TYPE = "iceberg_bot_message";

export interface BackoffSettings {
  /** First wait after a failed attempt (default 1 s); doubled each time. */
  baseMs: number;
  /** Longest wait between attempts (default 5 min). */
  capMs: number;
  /** After this long an entry is dropped with an error in the log (default 6 h). */
  giveUpAfterMs: number;
}

const DEFAULT_BACKOFF: BackoffSettings = {
  baseMs: 1000,
  capMs: 300_000,
  giveUpAfterMs: 6 * 3_600_000,
};

export interface PosterDeps {
  outbox: SlackOutbox;
  /** A client with retries off: one attempt, one request. */
  slack: SlackClient;
  store: Pick<IncidentStore, "get" | "update">;
  /** Draws and shares commit timelines (absent: chart entries are passed over). */
  charts?: TimelinePoster;
  /** Counts a Slack call that failed: a picture not shared, or an attempt at an entry (`outbox.<kind>`). */
  onSlackError?: (method: string) => void;
  /** Counts a message owed to Slack that was given up on: refused for good, past giveUpAfterMs, or unreadable. */
  onDropped?: (reason: "rejected" | "expired" | "invalid") => void;
  /** The messages of the status card, diagnoses and command results (absent: those entries fail). */
  views?: PosterViews;
  now: () => number;
  log: Pick<LogLike, "warn" | "error">;
  backoff?: Partial<BackoffSettings>;
  /** How often due entries are looked for (default 100 ms). */
  pollMs?: number;
  /**
   * How long an incident's queue stays with the poster that took it (default 30 s): a poster that
   * died holding one is taken over once it runs out.
   */
  leaseMs?: number;
  /** How long a proposal waits for the diagnosis it answers before posting anyway (default 15 s). */
  orderWaitMs?: number;
  /**
   * Resolves once what this poster wrote is on the replicas REDIS_URL asks for (throws when it
   * cannot be): a post is sent only after its "sending" mark would survive a failover.
   */
  confirmDurable?: () => Promise<void>;
  /**
   * Told what Slack's answers say about the token and the channel (readiness,
   * adapters/http/health.ts): a delivery in a channel, or Slack's refusal with its error code.
   */
  health?: {
    succeeded(channel?: string): Promise<void>;
    refused(error: string, channel?: string): Promise<void>;
  };
  /**
   * A message of an incident delivered later than `afterMs` is recorded; when the worst delay grew,
   * the card is edited to say the thread's messages came late.
   */
  late?: { afterMs: number; record(incidentId: string, delayMs: number): Promise<boolean> };
  /** Runs after Slack accepted a post and before it is recorded (tests kill a poster here). */
  afterSend?: (entry: SlackOutboxEntry) => Promise<void>;
}

export interface PosterViews {
  /** The status card of the incident's current state. */
  card(incident: Incident): Promise<SlackMessage>;
  diagnosis(incidentId: string, n: number): Promise<SlackMessage>;
  commandResult(result: unknown): SlackMessage;
  /** A message of no incident: the sweep's digest, an audit in its thread. */
  channelMessage?(message: ChannelMessage): SlackMessage;
  /** Diagnosis n's commit timeline, shared under the words (undefined: none was drawn). */
  diagnosisChart?(
    incidentId: string,
    n: number,
  ): Promise<{ chart: TimelineChart; file: TimelineFile } | undefined>;
  /**
   * The postmortem of a resolved incident, drafted from what is stored; undefined until the
   * resolution's history record is written.
   */
  postmortem?(incidentId: string): Promise<Postmortem | undefined>;
  /** Publishes a user's App Home from the current state, through this poster's client. */
  home?(user: string): Promise<void>;
  /** An ephemeral answer that belongs to no incident (status, history, a sweep button's). */
  reply?(reply: EphemeralReply): Promise<SlackMessage>;
}

/** The outbox id of an incident's root: one per incident, whichever entry asked for it. */
export function rootOutboxId(incidentId: string): string {
  return `root-${incidentId}`;
}

type Outcome =
  | { kind: "done" }
  | { kind: "wait"; ms: number }
  | { kind: "failed"; unknown: boolean; retryAfterMs?: number; error: string; permanent?: boolean };

/**
 * Slack's refusals that no retry can change: the message to edit is gone or not editable, or the
 * request itself is malformed. Retrying them for hours would hold the incident's later messages.
 * Refusals a person can fix (not_in_channel, channel_not_found, a revoked token) are retried.
 */
const PERMANENT_REFUSALS = new Set([
  "message_not_found",
  "cant_update_message",
  "edit_window_closed",
  "invalid_blocks",
  "invalid_blocks_format",
  "msg_too_long",
  "no_text",
  "invalid_arguments",
  "invalid_metadata_format",
  "user_not_in_channel",
]);

const LEASE_MS = 30_000;

/** Deliveries queued under an incident (the others queue per channel, person or App Home). */
const INCIDENT_KINDS = new Set<OutboxDelivery["kind"]>([
  "post",
  "update",
  "upsert",
  "ephemeral",
  "root",
  "card",
  "diagnosis",
  "command-result",
  "chart",
]);

export class OutboxPoster {
  private readonly backoff: BackoffSettings;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Incidents leased to this poster whose drain failed, with when the lease runs out. */
  private readonly interrupted = new Map<string, number>();

  constructor(private readonly deps: PosterDeps) {
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.leaseMs = deps.leaseMs ?? LEASE_MS;
  }

  start(): void {
    this.stopped = false;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.drain()
        .catch((error: unknown) => this.deps.log.warn({ err: String(error) }, "outbox poll failed"))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.deps.pollMs ?? 100);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Sends what is due now; resolves when every claimed incident has been worked through. */
  async drain(): Promise<void> {
    const now = this.deps.now();
    // An incident whose drain broke off (Redis went away mid-way) is still leased to this poster:
    // take it up again as soon as Redis answers, not a whole lease later.
    const resumed = [...this.interrupted].filter(([, until]) => until > now).map(([id]) => id);
    if (resumed.length > 0) await this.deps.outbox.renewLease(resumed, now + this.leaseMs);
    const claimed = await this.deps.outbox.claimDue(now, this.leaseMs, 50);
    this.interrupted.clear();
    const incidents = [...new Set([...resumed, ...claimed])];
    const results = await Promise.allSettled(incidents.map((id) => this.drainIncident(id)));
    let failure: unknown;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      this.interrupted.set(incidents[i]!, now + this.leaseMs);
      failure ??= result.reason;
    });
    if (failure !== undefined) throw failure;
  }

  private async drainIncident(incidentId: string): Promise<void> {
    for (;;) {
      const entry = await this.readHead(incidentId);
      if (entry === "later") return;
      if (!entry) return;
      // A card edit (or home publish) followed by another shows nothing the later one will not.
      const kind = entry.delivery.kind;
      const skipped =
        (kind === "card" || kind === "home") &&
        (await this.deps.outbox.next(incidentId))?.delivery.kind === kind;
      const outcome = skipped ? ({ kind: "done" } as const) : await this.deliver(entry);
      const now = this.deps.now();
      if (!skipped) await this.tellHealth(entry, outcome);
      if (!skipped && outcome.kind === "done") await this.noteLate(entry, now);
      if (outcome.kind === "done") {
        // Due again a lease ahead: this poster goes on with the next entry, and no other may
        // take the incident meanwhile (two posters on one queue would post its head twice).
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const attempt = await this.deps.outbox.attempt(entry.id);
      if (outcome.kind === "wait") {
        await this.deps.outbox.retryAt(entry, attempt, now + outcome.ms);
        return;
      }
      const next = { attempts: attempt.attempts + 1, unknown: attempt.unknown || outcome.unknown };
      this.deps.onSlackError?.(`outbox.${kind}`);
      if (outcome.permanent) {
        this.deps.onDropped?.("rejected");
        this.deps.log.error(
          { incidentId, entry: entry.id, kind, err: outcome.error },
          "Slack refused the message for good; going on with the next one",
        );
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      if (now - entry.createdAtMs > this.backoff.giveUpAfterMs) {
        this.deps.onDropped?.("expired");
        this.deps.log.error({ incidentId, entry: entry.id, err: outcome.error }, "Slack message given up");
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const backoff = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** (next.attempts - 1));
      this.deps.log.warn(
        { incidentId, entry: entry.id, attempt: next.attempts, err: outcome.error },
        "Slack message not delivered yet",
      );
      await this.deps.outbox.retryAt(entry, next, now + Math.max(backoff, outcome.retryAfterMs ?? 0));
      return;
    }
  }

  /**
   * The queue's head, or "later" when it cannot be read: one a newer release wrote is left for its
   * poster (retried after the backoff cap, so a rolling upgrade loses nothing); one no release
   * could have written is dropped, counted and logged.
   */
  private async readHead(incidentId: string): Promise<SlackOutboxEntry | undefined | "later"> {
    try {
      return await this.deps.outbox.head(incidentId);
    } catch (error) {
      if (!isCodedError(error, ErrorCode.StoredRecordInvalid)) throw error;
      const now = this.deps.now();
      this.deps.log.error(
        { incidentId, err: error.message, hint: error.hint },
        error.details?.newer
          ? "a Slack message this release cannot send, left for a newer one"
          : "an unreadable Slack message dropped",
      );
      if (error.details?.newer) {
        await this.deps.outbox.renewLease([incidentId], now + this.backoff.capMs);
        return "later";
      }
      this.deps.onDropped?.("invalid");
      await this.deps.outbox.dropUnreadableHead(incidentId, now + this.leaseMs);
      return this.readHead(incidentId);
    }
  }

  private async noteLate(entry: SlackOutboxEntry, now: number): Promise<void> {
    const { late } = this.deps;
    const delayMs = now - entry.createdAtMs;
    if (!late || delayMs <= late.afterMs || !INCIDENT_KINDS.has(entry.delivery.kind)) return;
    try {
      if (await late.record(entry.incidentId, delayMs))
        await this.deps.outbox.append(entry.incidentId, entry.channel, now, { kind: "card" });
    } catch (error) {
      this.deps.log.warn({ err: String(error) }, "a late Slack message not noted on the card");
    }
  }

  private async tellHealth(entry: SlackOutboxEntry, outcome: Outcome): Promise<void> {
    const { health } = this.deps;
    if (!health) return;
    // App Home publishes name no channel: they say only that the token works.
    const channel = entry.delivery.kind === "home" ? undefined : entry.channel;
    try {
      if (outcome.kind === "done") await health.succeeded(channel);
      else if (outcome.kind === "failed") await health.refused(outcome.error, channel);
    } catch (error) {
      this.deps.log.warn({ err: String(error) }, "readiness not updated from Slack's answer");
    }
  }

  private async deliver(entry: SlackOutboxEntry): Promise<Outcome> {
    const { delivery } = entry;
    try {
      if (delivery.kind === "channel-result" || delivery.kind === "channel-post")
        return await this.postInChannel(entry, delivery);
      if (delivery.kind === "home") {
        await this.views().home?.(delivery.user);
        return { kind: "done" };
      }
      if (delivery.kind === "reply") {
        const replyView = this.views().reply;
        if (!replyView) throw new Error("the poster has no views for ephemeral answers");
        const message = await replyView(delivery.reply);
        // Ephemeral: nobody else sees it and it is never in history, so a repeat is the only risk
        // of a lost answer, and a repeated answer harms less than a missing one.
        await this.deps.slack.chat.postEphemeral({
          channel: entry.channel,
          user: delivery.user,
          text: message.text,
          ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        });
        return { kind: "done" };
      }
      let incident = await this.deps.store.get(entry.incidentId);
      if (!incident) {
        this.deps.log.warn(
          { incidentId: entry.incidentId, entry: entry.id },
          "Slack message for no incident",
        );
        return { kind: "done" };
      }
      if (delivery.kind !== "ephemeral" && !incident.rootTs) {
        // Everything else threads under the root or edits it: the root comes first.
        const root = await this.postRoot(incident, entry);
        if (root.kind !== "done") return root;
        // Just rendered from the current state: nothing left to edit.
        if (delivery.kind === "root" || delivery.kind === "card") return root;
        incident = (await this.deps.store.get(entry.incidentId)) ?? incident;
      }
      const rootTs = incident.rootTs;
      switch (delivery.kind) {
        case "root":
          return { kind: "done" };
        case "card": {
          const message = await this.views().card(incident);
          await this.deps.slack.chat.update({
            channel: incident.channel,
            ts: String(rootTs),
            text: message.text,
            ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
          });
          return { kind: "done" };
        }
        case "diagnosis": {
          const name = `diagnosis-${delivery.n}`;
          if (!(await this.tsOf(entry.incidentId, name))) {
            const posted = await this.post(
              entry,
              name,
              await this.views().diagnosis(entry.incidentId, delivery.n),
              rootTs,
            );
            if (posted.kind !== "done") return posted;
          }
          // Once, under its own name; never holds back or repeats the words.
          const chart = this.views().diagnosisChart;
          if (rootTs && chart)
            await this.shareChart(entry, `diagnosis-${delivery.n}-chart`, rootTs, () =>
              chart(entry.incidentId, delivery.n),
            );
          return { kind: "done" };
        }
        case "chart":
          if (rootTs) await this.shareChart(entry, delivery.name, rootTs, async () => delivery);
          return { kind: "done" };
        case "postmortem":
          return await this.postPostmortem(entry, delivery, rootTs);
        case "command-result":
          if (await this.tsOf(entry.incidentId, delivery.name)) return { kind: "done" };
          return await this.post(entry, delivery.name, this.views().commandResult(delivery.result), rootTs);
        case "ephemeral":
          await this.deps.slack.chat.postEphemeral({
            channel: entry.channel,
            user: delivery.user,
            text: renderNotice(delivery.notice),
            ...(rootTs ? { thread_ts: rootTs } : {}),
          });
          return { kind: "done" };
        case "update":
        case "upsert": {
          const ts = await this.tsOf(entry.incidentId, delivery.name);
          if (!ts) {
            if (delivery.kind === "update") return { kind: "done" };
            return await this.post(entry, delivery.name, render(delivery.message), rootTs);
          }
          const message = render(delivery.message);
          await this.deps.slack.chat.update({
            channel: entry.channel,
            ts,
            text: message.text,
            ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
          });
          return { kind: "done" };
        }
        case "post": {
          if (await this.tsOf(entry.incidentId, delivery.name)) return { kind: "done" };
          if (!rootTs) return { kind: "wait", ms: 500 };
          // The proposal answers a diagnosis: let that land first (bounded, then post anyway).
          if (delivery.afterName && this.deps.now() - entry.createdAtMs < (this.deps.orderWaitMs ?? 15_000)) {
            if (!(await this.deps.outbox.messageTs(entry.incidentId, delivery.afterName)))
              return { kind: "wait", ms: 100 };
          }
          return await this.post(entry, delivery.name, render(delivery.message), rootTs);
        }
      }
    } catch (error) {
      return failure(error);
    }
  }

  private async post(
    entry: SlackOutboxEntry,
    name: string,
    message: SlackMessage,
    rootTs: string | undefined,
  ): Promise<Outcome> {
    if (!rootTs) return { kind: "wait", ms: 500 };
    const attempt = await this.deps.outbox.attempt(entry.id);
    if (attempt.unknown || attempt.sending) {
      // The last try may have landed: find it by its outbox id before posting again.
      const found = await this.findInThread(entry, rootTs);
      if (found) {
        await this.record(entry, name, found);
        return { kind: "done" };
      }
    }
    await this.markSending(entry.id, attempt);
    const result = await this.deps.slack.chat.postMessage({
      channel: entry.channel,
      thread_ts: rootTs,
      text: message.text,
      ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
      metadata: { event_type: OUTBOX_EVENT_TYPE, event_payload: { outbox_id: entry.id } },
    });
    await this.deps.afterSend?.(entry);
    await this.record(entry, name, String(result.ts));
    return { kind: "done" };
  }

  /**
   * The postmortem document once (a canvas, or the markdown file in the thread), then its note.
   * Drafted now from what is stored: the entry is queued with the resolution, before its history
   * record is written, so it waits (bounded) for that record. Before the document is sent a
   * "sending" mark is written (and replicated); a try that may have landed is looked for first.
   * Best effort like a picture: a document Slack will not take is logged and the note says so.
   */
  private async postPostmortem(
    entry: SlackOutboxEntry,
    delivery: Extract<SlackOutboxEntry["delivery"], { kind: "postmortem" }>,
    rootTs: string | undefined,
  ): Promise<Outcome> {
    if (await this.tsOf(entry.incidentId, delivery.name)) return { kind: "done" };
    if (!rootTs) return { kind: "wait", ms: 500 };
    const pm = delivery.postmortem ?? (await this.views().postmortem?.(entry.incidentId));
    if (!pm) {
      if (this.deps.now() - entry.createdAtMs < POSTMORTEM_WAIT_MS) return { kind: "wait", ms: 500 };
      this.deps.log.warn({ incidentId: entry.incidentId }, "postmortem not drafted: no history record");
      return { kind: "done" };
    }
    const docName = `${delivery.name}-document`;
    const saved = await this.tsOf(entry.incidentId, docName);
    let place = parsePlace(saved);
    if (saved === undefined) {
      const fileIds: Record<string, string | undefined> = {};
      for (const p of pm.pictures ?? []) if (p.ref) fileIds[p.ref] = await this.tsOf(entry.incidentId, p.ref);
      const id = `postmortem-${entry.incidentId}-document`;
      try {
        const attempt = await this.deps.outbox.attempt(id);
        await this.markSending(id, attempt);
        place = await publishPostmortem(
          this.deps.slack,
          { channel: entry.channel, threadTs: rootTs },
          pm,
          fileIds,
          { again: attempt.sending === true || attempt.unknown },
        );
      } catch (error) {
        this.deps.onSlackError?.("postmortem");
        this.deps.log.warn(
          { incidentId: entry.incidentId, err: String(error) },
          "postmortem document not shared",
        );
      }
      await this.deps.outbox.saveTs(entry.incidentId, docName, place ? JSON.stringify(place) : "failed");
      await this.deps.outbox.clearAttempt(id).catch(() => {});
    }
    return await this.post(entry, delivery.name, renderPostmortemNote(pm, place), rootTs);
  }

  private channelMessage(message: ChannelMessage): SlackMessage {
    const render = this.views().channelMessage;
    if (!render) throw new Error("the poster has no views for the sweep's messages");
    return render(message);
  }

  /**
   * Shares a commit timeline once under its name. Before the upload a "sending" mark is written
   * (and replicated); a try that may have landed is looked for in the thread by its file name.
   * Best effort: a failure is logged and the name marked done, so it never holds back the thread.
   */
  private async shareChart(
    entry: SlackOutboxEntry,
    name: string,
    rootTs: string,
    draw: () => Promise<{ chart: TimelineChart; file: TimelineFile } | undefined>,
  ): Promise<void> {
    const charts = this.deps.charts;
    if (!charts || (await this.tsOf(entry.incidentId, name))) return;
    const id = `chart-${entry.incidentId}-${name}`;
    try {
      const drawn = await draw();
      if (!drawn) return;
      const attempt = await this.deps.outbox.attempt(id);
      await this.markSending(id, attempt);
      const target = { channel: entry.channel, threadTs: rootTs };
      const again = attempt.sending === true || attempt.unknown;
      const { fileId } = await charts.post(target, drawn.chart, drawn.file, { again });
      await this.deps.outbox.saveTs(entry.incidentId, name, fileId);
    } catch (error) {
      await this.deps.outbox.saveTs(entry.incidentId, name, "failed").catch(() => {});
      this.deps.onSlackError?.("files.upload");
      this.deps.log.warn(
        { incidentId: entry.incidentId, name, err: String(error) },
        "commit timeline not posted",
      );
    }
    await this.deps.outbox.clearAttempt(id).catch(() => {});
  }

  private views(): PosterViews {
    if (!this.deps.views) throw new Error("the poster has no views for status cards and diagnoses");
    return this.deps.views;
  }

  /** A top-level message of no incident, once: looked for in the channel after a lost answer. */
  private async postInChannel(
    entry: SlackOutboxEntry,
    delivery: Extract<SlackOutboxEntry["delivery"], { kind: "channel-result" | "channel-post" }>,
  ): Promise<Outcome> {
    if (await this.deps.outbox.messageTs(entry.incidentId, delivery.name)) return { kind: "done" };
    const threadTs = delivery.kind === "channel-post" ? delivery.threadTs : undefined;
    const attempt = await this.deps.outbox.attempt(entry.id);
    let ts: string | undefined;
    if (attempt.unknown || attempt.sending)
      ts = threadTs
        ? await this.findInThread(entry, threadTs)
        : await this.findInChannel(entry.channel, entry.id);
    if (!ts) {
      await this.markSending(entry.id, attempt);
      const message =
        delivery.kind === "channel-result"
          ? this.views().commandResult(delivery.result)
          : this.channelMessage(delivery.message);
      const result = await this.deps.slack.chat.postMessage({
        channel: entry.channel,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...(delivery.kind === "channel-post" && !threadTs ? { unfurl_links: false } : {}),
        text: message.text,
        ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
        metadata: { event_type: OUTBOX_EVENT_TYPE, event_payload: { outbox_id: entry.id } },
      });
      await this.deps.afterSend?.(entry);
      ts = String(result.ts);
    }
    await this.deps.outbox.saveTs(entry.incidentId, delivery.name, ts);
    return { kind: "done" };
  }

  /**
   * Posts the incident's root once. An attempt whose answer was lost is looked for by its outbox
   * id in the channel's recent history before posting again.
   */
  private async postRoot(incident: Incident, entry: SlackOutboxEntry): Promise<Outcome> {
    const id = rootOutboxId(incident.id);
    const attempt = await this.deps.outbox.attempt(id);
    try {
      let ts =
        attempt.unknown || attempt.sending ? await this.findInChannel(incident.channel, id) : undefined;
      if (!ts) {
        await this.markSending(id, attempt);
        const message = await this.views().card(incident);
        const result = await this.deps.slack.chat.postMessage({
          channel: incident.channel,
          text: message.text,
          ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
          metadata: { event_type: OUTBOX_EVENT_TYPE, event_payload: { outbox_id: id } },
        });
        await this.deps.afterSend?.(entry);
        ts = String(result.ts);
      }
      // The incident record first: what threads under the root reads it there.
      await this.deps.store.update(incident.id, { rootTs: ts }, incident.updatedAt);
      await this.deps.outbox.saveTs(incident.id, "root", ts);
      await this.deps.outbox.clearAttempt(id);
      return { kind: "done" };
    } catch (error) {
      const outcome = failure(error);
      if (outcome.kind === "failed") {
        // A refusal Slack answered clears the "sending" mark: nothing to look for next time.
        const unknown = attempt.unknown || outcome.unknown;
        await this.deps.outbox.saveAttempt(id, { attempts: attempt.attempts + 1, unknown });
      }
      return outcome;
    }
  }

  /**
   * Marks a post as possibly landing before it is sent, and waits for the mark to be replicated
   * where REDIS_URL asks for replicas: the record of Slack's answer is written after the send and
   * can be lost (a crash, a failover), the mark cannot, so the next attempt looks first.
   */
  private async markSending(id: string, attempt: Attempt): Promise<void> {
    await this.deps.outbox.saveAttempt(id, { ...attempt, sending: true });
    await this.deps.confirmDurable?.();
  }

  private findInChannel(channel: string, id: string): Promise<string | undefined> {
    return findInPages(
      (cursor) =>
        this.deps.slack.conversations.history({
          channel,
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        }),
      (message) => (outboxIdOf(message) === id ? message.ts : undefined),
    );
  }

  private findInThread(entry: SlackOutboxEntry, rootTs: string): Promise<string | undefined> {
    return findInPages(
      (cursor) =>
        this.deps.slack.conversations.replies({
          channel: entry.channel,
          ts: rootTs,
          include_all_metadata: true,
          limit: 200,
          ...(cursor ? { cursor } : {}),
        }),
      (message) => (outboxIdOf(message) === entry.id ? message.ts : undefined),
    );
  }

  private async record(entry: SlackOutboxEntry, name: string, ts: string): Promise<void> {
    await this.deps.outbox.saveTs(entry.incidentId, name, ts);
  }

  private tsOf(incidentId: string, name: string): Promise<string | undefined> {
    return this.deps.outbox.messageTs(incidentId, name);
  }
}

/** How long a postmortem waits for its incident's history record before it is given up (logged). */
const POSTMORTEM_WAIT_MS = 10 * 60_000;

function parsePlace(saved: string | undefined): PostmortemPlace | undefined {
  if (!saved || saved === "failed") return undefined;
  try {
    return JSON.parse(saved) as PostmortemPlace;
  } catch {
    return undefined;
  }
}

function outboxIdOf(message: unknown): unknown {
  return (message as { metadata?: { event_payload?: Record<string, unknown> } }).metadata?.event_payload
    ?.outbox_id;
}

function render(message: OutboxMessage): SlackMessage {
  switch (message.kind) {
    case "proposal": {
      const rendered = renderProposal(message.view);
      if (message.note === undefined) return rendered;
      let blocks = rendered.blocks;
      if (message.withButtons === false) blocks = blocks.filter((b) => b.type !== "actions");
      return { text: rendered.text, blocks: [...blocks, context(renderProposalNote(message.note))] };
    }
    case "verification":
      return renderVerification(message.view);
    case "note":
      return noteMessage(message.note);
    case "text":
      return { text: escapeMrkdwn(message.text), blocks: [] };
  }
}

/** Whether Slack may have carried the call out: an answer that never came, or a 5xx. */
function failure(error: unknown): Outcome {
  // A stored record the message is drawn from cannot be read: no retry mends it, and retrying
  // would hold every later message of its queue (a person's other answers) for hours.
  if (isCodedError(error, ErrorCode.StoredRecordInvalid))
    return { kind: "failed", unknown: false, permanent: true, error: error.message };
  const e = error as {
    code?: string;
    statusCode?: number;
    retryAfter?: number;
    message?: string;
    data?: { error?: string };
  };
  const text = e.data?.error ?? e.message ?? String(error);
  switch (e.code) {
    case "slack_webapi_rate_limited_error":
      return { kind: "failed", unknown: false, retryAfterMs: (e.retryAfter ?? 1) * 1000, error: text };
    case "slack_webapi_platform_error":
      return { kind: "failed", unknown: false, error: text, permanent: PERMANENT_REFUSALS.has(text) };
    default:
      // Timeouts, resets and HTTP errors (5xx): the message may be in Slack already.
      return { kind: "failed", unknown: true, error: text };
  }
}
