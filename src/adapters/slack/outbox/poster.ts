// The only sender of the outbox's entries. One attempt is one request (the Web client's own
// retries are off); a failed attempt waits with capped exponential backoff (or Slack's
// Retry-After) and is tried again for as long as `giveUpAfterMs` allows. Every post goes through
// one post-once routine: a "sending" mark is written (and replicated) before it is sent, and a post
// whose outcome is unknown (timeout, reset, 5xx) is looked for by the outbox id in its metadata
// before it is posted again, so it lands exactly once. Entries of one queue go in order; an
// incident's root (its status card) is posted before anything that threads under it. What each
// kind sends is in deliveries.ts; how a view looks is in ../views.ts.

import type { Postmortem } from "../../../core/history/postmortem.js";
import type { Incident } from "../../../core/incident/model.js";
import { ErrorCode, isCodedError } from "../../../errors.js";
import type { LogLike } from "../../../services/incident/deps.js";
import type { IncidentStore } from "../../store/incident-store.js";
import { findInPages } from "../find-in-pages.js";
import {
  editPostmortem,
  type PostmortemPlace,
  publishPostmortem,
  renderPostmortemNote,
} from "../postmortem-slack.js";
import type { SlackMessage } from "../render/block-kit.js";
import type { TimelinePoster } from "../upload.js";
import type { SlackViews } from "../views.js";
import type { SlackClient } from "../web-client.js";
import { deliverySpec, type Send } from "./deliveries.js";
import type { Attempt, SlackOutbox, SlackOutboxEntry } from "./outbox.js";

export const OUTBOX_EVENT_TYPE = "iceberg_bot_message";

export interface BackoffSettings {
  /** First wait after a failed attempt (default 1 s); doubled each time. */
  baseMs: number;
  /** Longest wait between attempts (default 5 min). */
  capMs: number;
  /** After this long an entry is dropped with an error in the log (default 6 h). */
  giveUpAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffSettings = {
  baseMs: 1000,
  capMs: 300_000,
  giveUpAfterMs: 6 * 3_600_000,
};

export interface PosterDeps {
  outbox: SlackOutbox;
  /** A client with retries off: one attempt, one request. */
  slack: SlackClient;
  store: Pick<IncidentStore, "get" | "update">;
  /** What entries show, rendered for Slack. */
  views: SlackViews;
  /** Draws and shares commit timelines (absent: chart entries are passed over). */
  charts?: TimelinePoster;
  /** Counts a Slack call that failed: a picture not shared, or an attempt at an entry (`outbox.<kind>`). */
  onSlackError?: (method: string) => void;
  /** Counts a message owed to Slack that was given up on: refused for good, past giveUpAfterMs, or unreadable. */
  onDropped?: (reason: "rejected" | "expired" | "invalid") => void;
  now: () => number;
  log: Pick<LogLike, "warn" | "error">;
  backoff?: Partial<BackoffSettings>;
  /** How often due entries are looked for (default 100 ms). */
  pollMs?: number;
  /** How long a queue stays with the poster that took it (default 30 s): a dead poster's is taken over. */
  leaseMs?: number;
  /** How long a post waits for the one it answers before posting anyway (default 15 s). */
  orderWaitMs?: number;
  /** Resolves once what this poster wrote is on the replicas REDIS_URL asks for (throws when it cannot be). */
  confirmDurable?: () => Promise<void>;
  /** Told what Slack's answers say about the token and the channel (readiness, adapters/http/health.ts). */
  health?: {
    succeeded(channel?: string): Promise<void>;
    refused(error: string, channel?: string): Promise<void>;
  };
  /** A delivery later than `afterMs` is recorded; when the worst delay grew, the card is edited to say so. */
  late?: { afterMs: number; record(incidentId: string, delayMs: number): Promise<boolean> };
  /** Runs after Slack accepted a post and before it is recorded (tests kill a poster here). */
  afterSend?: (entry: SlackOutboxEntry) => Promise<void>;
}

/** The outbox id of an incident's root: one per incident, whichever entry asked for it. */
export function rootOutboxId(incidentId: string): string {
  return `root-${incidentId}`;
}

type Outcome =
  | { kind: "done" }
  | { kind: "wait"; ms: number }
  | { kind: "failed"; unknown: boolean; retryAfterMs?: number; error: string; permanent?: boolean };

const DONE: Outcome = { kind: "done" };

/** Slack's refusals no retry can change (a person can fix not_in_channel or a revoked token: retried). */
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

/** How long a postmortem waits for its incident's history record before it is given up (logged). */
const POSTMORTEM_WAIT_MS = 10 * 60_000;

export class OutboxPoster {
  private readonly backoff: BackoffSettings;
  private readonly leaseMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Incidents leased to this poster whose drain failed, with when the lease runs out. */
  private readonly interrupted = new Map<string, number>();
  /** Entries a newer release wrote, already logged by this process (each is logged once). */
  private readonly leftForNewer = new Set<string>();

  constructor(private readonly deps: PosterDeps) {
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
    this.leaseMs = deps.leaseMs ?? 30_000;
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

  /** Sends what is due now; resolves when every claimed queue has been worked through. */
  async drain(): Promise<void> {
    const now = this.deps.now();
    // A queue whose drain broke off (Redis went away mid-way) is still leased to this poster:
    // take it up again as soon as Redis answers, not a whole lease later.
    const resumed = [...this.interrupted].filter(([, until]) => until > now).map(([id]) => id);
    if (resumed.length > 0) await this.deps.outbox.renewLease(resumed, now + this.leaseMs);
    const claimed = await this.deps.outbox.claimDue(now, this.leaseMs, 50);
    this.interrupted.clear();
    const queues = [...new Set([...resumed, ...claimed])];
    const results = await Promise.allSettled(queues.map((id) => this.drainQueue(id)));
    let failure: unknown;
    results.forEach((result, i) => {
      if (result.status === "fulfilled") return;
      this.interrupted.set(queues[i]!, now + this.leaseMs);
      failure ??= result.reason;
    });
    if (failure !== undefined) throw failure;
  }

  private async drainQueue(queueId: string): Promise<void> {
    for (;;) {
      const entry = await this.readHead(queueId);
      if (!entry || entry === "later") return;
      const { kind } = entry.delivery;
      const spec = deliverySpec(entry.delivery);
      // A named view followed by a newer version of it shows nothing the later one will not.
      const next = spec?.replacedBy ? await this.deps.outbox.next(queueId) : undefined;
      const skipped =
        next?.delivery.kind === kind &&
        spec?.replacedBy?.(next.delivery) === spec?.replacedBy?.(entry.delivery);
      const outcome = skipped ? DONE : await this.deliver(entry);
      const now = this.deps.now();
      if (!skipped) await this.tellHealth(entry, outcome);
      if (!skipped && outcome.kind === "done" && spec?.scope !== "none" && !spec?.waits)
        await this.noteLate(entry, now);
      if (outcome.kind === "done") {
        // Due again a lease ahead: this poster goes on with the next entry, and no other may
        // take the queue meanwhile (two posters on one queue would post its head twice).
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const attempt = await this.deps.outbox.attempt(entry.id);
      if (outcome.kind === "wait") return this.deps.outbox.retryAt(entry, attempt, now + outcome.ms);
      const tried = { attempts: attempt.attempts + 1, unknown: attempt.unknown || outcome.unknown };
      this.deps.onSlackError?.(`outbox.${kind}`);
      const expired = now - entry.createdAtMs > this.backoff.giveUpAfterMs;
      if (outcome.permanent || expired) {
        this.deps.onDropped?.(outcome.permanent ? "rejected" : "expired");
        this.deps.log.error(
          { incidentId: entry.incidentId, entry: entry.id, kind, err: outcome.error },
          outcome.permanent
            ? "Slack refused the message for good; going on with the next one"
            : "Slack message given up",
        );
        await this.deps.outbox.done(entry, now + this.leaseMs);
        continue;
      }
      const backoff = Math.min(this.backoff.capMs, this.backoff.baseMs * 2 ** (tried.attempts - 1));
      this.deps.log.warn(
        { incidentId: entry.incidentId, entry: entry.id, attempt: tried.attempts, err: outcome.error },
        "Slack message not delivered yet",
      );
      return this.deps.outbox.retryAt(entry, tried, now + Math.max(backoff, outcome.retryAfterMs ?? 0));
    }
  }

  /**
   * The queue's head, or "later" when it cannot be read: one a newer release wrote stays in place
   * for its poster (the queue is looked at again after the backoff cap, and the entry logged once
   * per process); one no release could have written is dropped, counted and logged.
   */
  private async readHead(queueId: string): Promise<SlackOutboxEntry | undefined | "later"> {
    try {
      return await this.deps.outbox.head(queueId);
    } catch (error) {
      if (!isCodedError(error, ErrorCode.StoredRecordInvalid)) throw error;
      const now = this.deps.now();
      if (error.details?.newer) {
        const seen = `${queueId}|${error.message}`;
        if (!this.leftForNewer.has(seen)) {
          this.leftForNewer.add(seen);
          this.deps.log.error(
            { incidentId: queueId, err: error.message, hint: error.hint },
            "a Slack message this release cannot send, left for a newer one",
          );
        }
        await this.deps.outbox.renewLease([queueId], now + this.backoff.capMs);
        return "later";
      }
      this.deps.log.error(
        { incidentId: queueId, err: error.message, hint: error.hint },
        "an unreadable Slack message dropped",
      );
      this.deps.onDropped?.("invalid");
      await this.deps.outbox.dropUnreadableHead(queueId, now + this.leaseMs);
      return this.readHead(queueId);
    }
  }

  private async noteLate(entry: SlackOutboxEntry, now: number): Promise<void> {
    const { late } = this.deps;
    const delayMs = now - entry.createdAtMs;
    if (!late || delayMs <= late.afterMs) return;
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
    try {
      const spec = deliverySpec(entry.delivery)!;
      let incident: Incident | undefined;
      if (spec.scope !== "none") {
        incident = await this.deps.store.get(entry.incidentId);
        if (!incident) {
          this.deps.log.warn(
            { incidentId: entry.incidentId, entry: entry.id },
            "Slack message for no incident",
          );
          return DONE;
        }
        if (spec.scope === "thread" && !incident.rootTs) {
          // Everything else threads under the root or edits it: the root comes first.
          const root = await this.postRoot(entry, incident);
          // Just rendered from the current state: nothing left to edit.
          if (root.kind !== "done" || spec.card) return root;
          incident = (await this.deps.store.get(entry.incidentId)) ?? incident;
        }
      }
      for (const send of spec.sends(entry.delivery, this.deps.views, incident as Incident)) {
        const outcome = await this.send(entry, send, incident?.rootTs);
        if (outcome.kind !== "done") return outcome;
      }
      return DONE;
    } catch (error) {
      return failure(error);
    }
  }

  private async send(entry: SlackOutboxEntry, send: Send, rootTs: string | undefined): Promise<Outcome> {
    const { slack } = this.deps;
    switch (send.op) {
      case "post": {
        if (send.in === undefined && !rootTs) return { kind: "wait", ms: 500 };
        // An answer to an earlier message: let that land first (bounded, then post anyway).
        const waited = this.deps.now() - entry.createdAtMs < (this.deps.orderWaitMs ?? 15_000);
        if (send.afterName && waited && !(await this.tsOf(entry.incidentId, send.afterName)))
          return { kind: "wait", ms: 100 };
        const threadTs = send.in === "channel" ? undefined : send.in ? send.in.threadTs : rootTs;
        return this.once(entry, send.name, entry.id, this.post(entry, entry.id, threadTs, send.message));
      }
      case "update": {
        const ts = send.ts ?? (await this.tsOf(entry.incidentId, send.name));
        if (!ts && send.orPost) return this.send(entry, { ...send, op: "post" }, rootTs);
        if (ts) await slack.chat.update({ channel: entry.channel, ts, ...body(await send.message()) });
        return DONE;
      }
      case "ephemeral": {
        // Seen by one person and never in history: a repeat harms less than a missing answer.
        const thread = rootTs ? { thread_ts: rootTs } : {};
        const message = body(await send.message());
        await slack.chat.postEphemeral({ channel: entry.channel, user: send.user, ...message, ...thread });
        return DONE;
      }
      case "publish":
        await slack.views.publish({ user_id: send.user, view: await this.deps.views.home() });
        return DONE;
      case "upload": {
        const { charts } = this.deps;
        const drawn = charts && rootTs ? await send.draw().catch(() => undefined) : undefined;
        if (!charts || !rootTs || !drawn) return DONE;
        // Best effort: a picture that fails is logged and marked done, never holding back the thread.
        const id = `chart-${entry.incidentId}-${send.name}`;
        const target = { channel: entry.channel, threadTs: rootTs };
        const share = (again: boolean) => charts.post(target, drawn.chart, drawn.file, { again });
        return this.once(
          entry,
          send.name,
          id,
          this.bestEffort(entry, "files.upload", async (again) => (await share(again)).fileId),
        );
      }
      case "canvas":
        return send.edit ? this.editPostmortem(entry, send) : this.postPostmortem(entry, send, rootTs);
    }
  }

  /**
   * The one send-once routine, used by every kind: nothing is sent when `name` is recorded; before
   * a send a "sending" mark is written (and replicated) under `id`, so the next try, after a lost
   * answer or a poster gone mid-way, looks for what may have landed (`again`) before sending
   * again. What Slack answered (a ts, a file id, a canvas) is recorded under the name, after
   * `recorded` ran.
   */
  private async once(
    entry: SlackOutboxEntry,
    name: string,
    id: string,
    sendIt: (again: boolean) => Promise<string>,
    recorded?: (answer: string) => Promise<unknown>,
  ): Promise<Outcome> {
    let answer = await this.tsOf(entry.incidentId, name);
    const attempt = await this.deps.outbox.attempt(id);
    try {
      if (answer === undefined) {
        await this.markSending(id, attempt);
        answer = await sendIt(attempt.unknown || attempt.sending === true);
      }
      await recorded?.(answer);
      await this.deps.outbox.saveTs(entry.incidentId, name, answer);
      if (id !== entry.id) await this.deps.outbox.clearAttempt(id);
      return DONE;
    } catch (error) {
      const outcome = failure(error);
      // A mark of its own (the root's): a refusal Slack answered clears it, nothing to look for.
      if (id !== entry.id && outcome.kind === "failed") {
        const unknown = attempt.unknown || outcome.unknown;
        await this.deps.outbox.saveAttempt(id, { attempts: attempt.attempts + 1, unknown });
      }
      return outcome;
    }
  }

  /** A message posted under outbox id `id` (in its metadata), found by it after a lost answer. */
  private post(entry: SlackOutboxEntry, id: string, threadTs: string | undefined, message: () => Rendered) {
    return async (again: boolean): Promise<string> => {
      const found = again ? await this.findPosted(entry.channel, id, threadTs) : undefined;
      if (found) return found;
      const result = await this.deps.slack.chat.postMessage({
        channel: entry.channel,
        ...(threadTs ? { thread_ts: threadTs } : {}),
        ...(entry.delivery.kind === "channel-post" && !threadTs ? { unfurl_links: false } : {}),
        ...body(await message()),
        metadata: { event_type: OUTBOX_EVENT_TYPE, event_payload: { outbox_id: id } },
      });
      await this.deps.afterSend?.(entry);
      return String(result.ts);
    };
  }

  /** A send whose failure is counted, logged and recorded as "failed" rather than retried. */
  private bestEffort(entry: SlackOutboxEntry, method: string, sendIt: (again: boolean) => Promise<string>) {
    return (again: boolean) =>
      sendIt(again).catch((error: unknown) => {
        this.deps.onSlackError?.(method);
        this.deps.log.warn(
          { incidentId: entry.incidentId, method, err: String(error) },
          "not shared in Slack",
        );
        return "failed";
      });
  }

  /** The incident's root once, whichever entry asks first; the incident record learns its ts first. */
  private postRoot(entry: SlackOutboxEntry, incident: Incident): Promise<Outcome> {
    const id = rootOutboxId(incident.id);
    const post = this.post(entry, id, undefined, () => this.deps.views.card(incident));
    return this.once(entry, "root", id, post, (ts) =>
      this.deps.store.update(incident.id, { rootTs: ts }, incident.updatedAt),
    );
  }

  /**
   * The postmortem document once (a canvas, or the markdown file in the thread), then its note.
   * Drafted now from what is stored unless the entry carries it: the entry is queued with the
   * resolution, before its history record is written, so it waits (bounded) for that record.
   * Best effort like a picture: a document Slack will not take is logged and the note says so.
   */
  private async postPostmortem(entry: SlackOutboxEntry, send: CanvasSend, rootTs: string | undefined) {
    const { incidentId } = entry;
    if (await this.tsOf(incidentId, send.name)) return DONE;
    if (!rootTs) return { kind: "wait", ms: 500 } as const;
    const pm = send.postmortem ?? (await this.deps.views.postmortem(incidentId));
    if (!pm) {
      if (this.deps.now() - entry.createdAtMs < POSTMORTEM_WAIT_MS) return { kind: "wait", ms: 500 } as const;
      this.deps.log.warn({ incidentId }, "postmortem not drafted: no history record");
      return DONE;
    }
    const document = `${send.name}-document`;
    const target = { channel: entry.channel, threadTs: rootTs };
    const publish = async (again: boolean) =>
      JSON.stringify(
        await publishPostmortem(this.deps.slack, target, pm, await this.fileIds(incidentId, pm), { again }),
      );
    const shared = await this.once(
      entry,
      document,
      `postmortem-${incidentId}-document`,
      this.bestEffort(entry, "postmortem", publish),
    );
    if (shared.kind !== "done") return shared;
    const place = parsePlace(await this.tsOf(incidentId, document));
    const note = () => renderPostmortemNote(pm, place);
    return this.once(entry, send.name, entry.id, this.post(entry, entry.id, rootTs, note));
  }

  /** A newer version of a posted postmortem: its canvas edited in place (a file stays as shared). */
  private async editPostmortem(entry: SlackOutboxEntry, send: CanvasSend): Promise<Outcome> {
    const place = parsePlace(await this.tsOf(entry.incidentId, `${send.name}-document`));
    if (place?.kind !== "canvas") return DONE;
    const pm = send.postmortem ?? (await this.deps.views.postmortem(entry.incidentId));
    if (pm) await editPostmortem(this.deps.slack, place.id, pm, await this.fileIds(entry.incidentId, pm));
    return DONE;
  }

  /** The files shared for the postmortem's pictures, by the names they were shared under. */
  private async fileIds(incidentId: string, pm: Postmortem): Promise<Record<string, string | undefined>> {
    const ids: Record<string, string | undefined> = {};
    for (const p of pm.pictures ?? []) if (p.ref) ids[p.ref] = await this.tsOf(incidentId, p.ref);
    return ids;
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

  /** A message posted under this outbox id: in the thread, or in the channel's recent history. */
  private findPosted(channel: string, id: string, threadTs: string | undefined): Promise<string | undefined> {
    const page = (cursor: string | undefined) => {
      const args = { channel, include_all_metadata: true, limit: 200, ...(cursor ? { cursor } : {}) };
      return threadTs
        ? this.deps.slack.conversations.replies({ ...args, ts: threadTs })
        : this.deps.slack.conversations.history(args);
    };
    return findInPages(page, (message) => (outboxIdOf(message) === id ? message.ts : undefined));
  }

  private tsOf(incidentId: string, name: string): Promise<string | undefined> {
    return this.deps.outbox.messageTs(incidentId, name);
  }
}

type Rendered = SlackMessage | Promise<SlackMessage>;
type CanvasSend = Extract<Send, { op: "canvas" }>;

function body(message: SlackMessage) {
  return { text: message.text, ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}) };
}

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

/** Whether Slack may have carried the call out: an answer that never came, or a 5xx. */
function failure(error: unknown): Outcome {
  // A stored record the message is drawn from cannot be read: no retry mends it, and retrying
  // would hold every later message of its queue (a person's other answers) for hours.
  if (isCodedError(error, ErrorCode.StoredRecordInvalid))
    return { kind: "failed", unknown: false, permanent: true, error: error.message };
  const e = error as { code?: string; retryAfter?: number; message?: string; data?: { error?: string } };
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
