// What one outbox entry sends, through one send-once routine for every kind: nothing is sent
// twice under one name; a "sending" mark is written (and replicated) before a send, and a send
// whose outcome is unknown (timeout, reset, 5xx, a poster gone mid-way) is looked for by the outbox
// id in its metadata, or the file or canvas by its name, before it is sent again. An incident's
// root (its status card) is posted before anything that threads under it. What each kind sends
// is in deliveries.ts; how a view looks is in ../views.ts.

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

/** The outbox id of an incident's root: one per incident, whichever entry asked for it. */
export function rootOutboxId(incidentId: string): string {
  return `root-${incidentId}`;
}

export type Outcome =
  | { kind: "done" }
  | { kind: "wait"; ms: number }
  | { kind: "failed"; unknown: boolean; retryAfterMs?: number; error: string; permanent?: boolean };

export const DONE: Outcome = { kind: "done" };

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

export interface SenderDeps {
  outbox: Pick<SlackOutbox, "attempt" | "saveAttempt" | "clearAttempt" | "messageTs" | "saveTs">;
  /** A client with retries off: one attempt, one request. */
  slack: SlackClient;
  store: Pick<IncidentStore, "get" | "update">;
  /** What entries show, rendered for Slack. */
  views: SlackViews;
  /** Draws and shares commit timelines (absent: chart entries are passed over). */
  charts?: TimelinePoster;
  /** Counts a Slack call that failed: a picture or document not shared, or an attempt (`outbox.<kind>`). */
  onSlackError?: (method: string) => void;
  now: () => number;
  log: Pick<LogLike, "warn" | "error">;
  /** How long a post waits for the one it answers before posting anyway (default 15 s). */
  orderWaitMs?: number;
  /** Resolves once what was written is on the replicas REDIS_URL asks for (throws when it cannot be). */
  confirmDurable?: () => Promise<void>;
  /** Runs after Slack accepted a post and before it is recorded (tests kill a poster here). */
  afterSend?: (entry: SlackOutboxEntry) => Promise<void>;
}

export class EntrySender {
  constructor(private readonly deps: SenderDeps) {}

  async deliver(entry: SlackOutboxEntry): Promise<Outcome> {
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
