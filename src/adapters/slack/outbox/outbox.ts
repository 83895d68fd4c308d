// The durable outbox of what the bot owes Slack (status cards, diagnoses, results, App Home and
// remediation's messages): every message and edit is an entry in Redis before anything is
// sent, and one poster (poster.ts) drains it. Entries queue per incident (or per channel
// or user for what belongs to none), oldest first, so a thread keeps its order; a sorted set says
// when each incident's queue is next due. A message's outbox id travels in its Slack metadata,
// so a post whose answer was lost is found in the thread instead of being posted twice.
// Not a BullMQ queue: an incident's entries go strictly one after another (a failing one holds
// the later ones back, so the thread keeps its order), and an entry is appended by the same Lua
// script that saves the remediation record owing it (remediation-store.ts), which BullMQ's add cannot join.
//
// Keys (one hash tag, one Redis Cluster slot): {ns}:outbox:seq, {ns}:outbox:q:<incident> (list),
// {ns}:outbox:due (zset incident -> due ms), {ns}:outbox:ts (hash incident|name -> message ts),
// {ns}:outbox:try (hash entry id -> attempts and whether the last outcome is unknown).

import type { RedisClient } from "../../redis/connection.js";
import { runScript } from "../../redis/scripts.js";
import { DEFAULT_NAMESPACE } from "../../store/keys.js";
import { storedRecordInvalid } from "../../store/report-format.js";
import { isDeliveryKind, type OutboxDelivery } from "./deliveries.js";

export type { ChannelMessage, OutboxDelivery } from "./deliveries.js";

export interface SlackOutboxEntry {
  /** Stable id, carried in the Slack message's metadata. */
  id: string;
  /** The entry's stored format (OUTBOX_FORMAT; entries without it are format 1, what 0.1.0 wrote). */
  format: number;
  incidentId: string;
  channel: string;
  createdAtMs: number;
  delivery: OutboxDelivery;
}

export interface Attempt {
  attempts: number;
  /** The last attempt may have reached Slack: look before posting again. */
  unknown: boolean;
  /**
   * Written (and replicated) before a post is sent, cleared with the entry: a poster that dies,
   * or a failover that loses the record of the answer, leaves it set, and the next one looks.
   */
  sending?: boolean;
}

/**
 * Format 2 adds `format` to the entry (after its id, which the scripts below look for first);
 * format 3 adds the postmortem-edit kind, which a format-2 release leaves for a newer poster.
 */
export const OUTBOX_FORMAT = 3;

const OUTBOX_HINTS = {
  newer:
    "It was written by a newer iceberg-bot: upgrade this one to that release, whose poster sends it (docs/operations.md, Upgrading and rolling back).",
  other:
    "It is not an entry any iceberg-bot writes; it is dropped and counted (docs/operations.md, Upgrading and rolling back).",
};

/**
 * An entry as stored, read as this release uses it: migrated from format 1, checked whatever its
 * format (a newer one is read when its envelope and delivery kind are ones this release knows).
 * Throws a coded error naming the queue and what to do otherwise: an entry whose envelope is
 * whole but whose kind is unknown was written by a newer release, whatever its format says.
 */
function readOutboxEntry(raw: string, queueKey: string): SlackOutboxEntry {
  const fail = (why: string, newer: boolean): never => {
    const message = `The Slack outbox entry at the head of ${queueKey} cannot be read: ${why}`;
    throw storedRecordInvalid(message, newer, { key: queueKey, newer }, OUTBOX_HINTS);
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return fail("not JSON", false);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    return fail("not an object", false);
  const entry = parsed as Record<string, unknown>;
  const format = entry.format ?? 1;
  if (typeof format !== "number" || !Number.isInteger(format) || format < 1)
    return fail(`format ${JSON.stringify(format)}`, false);
  const newer = format > OUTBOX_FORMAT;
  const delivery = entry.delivery as Record<string, unknown> | undefined;
  const problem =
    typeof entry.id !== "string" || entry.id === ""
      ? "no id"
      : typeof entry.incidentId !== "string" || typeof entry.channel !== "string"
        ? "no incident or channel"
        : typeof entry.createdAtMs !== "number"
          ? "no createdAtMs"
          : typeof delivery !== "object" || delivery === null || typeof delivery.kind !== "string"
            ? "no delivery kind"
            : undefined;
  if (problem)
    return fail(newer ? `format ${format} is newer than ${OUTBOX_FORMAT}; ${problem}` : problem, newer);
  if (!isDeliveryKind(delivery?.kind))
    return fail(`delivery kind ${JSON.stringify(delivery?.kind)} is not one this release sends`, true);
  return { ...(entry as unknown as SlackOutboxEntry), format: Math.max(format, OUTBOX_FORMAT) };
}

/** The queue of a channel's top-level messages that belong to no incident. */
export function channelQueueId(channel: string): string {
  return `channel-${channel}`;
}

/** The queue of a person's ephemeral answers that belong to no incident, in the order they were owed. */
export function replyQueueId(user: string): string {
  return `replies-${user}`;
}

/** The queue of a user's App Home publishes. */
export function homeQueueId(user: string): string {
  return `home-${user}`;
}

export class SlackOutbox {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisClient,
    namespace: string = DEFAULT_NAMESPACE,
  ) {
    this.prefix = `{${namespace}}:outbox`;
  }

  private queueKey(incidentId: string): string {
    return `${this.prefix}:q:${incidentId}`;
  }

  /** The keys an incident's entries are appended to (seq, queue, due), for a script that also appends. */
  appendKeys(incidentId: string): [string, string, string] {
    return [`${this.prefix}:seq`, this.queueKey(incidentId), `${this.prefix}:due`];
  }

  /** An entry as stored, with its id left blank ("id":"" first) for the appending script to fill. */
  entryJson(incidentId: string, channel: string, nowMs: number, delivery: OutboxDelivery): string {
    return JSON.stringify({
      id: "",
      format: OUTBOX_FORMAT,
      incidentId,
      channel,
      createdAtMs: nowMs,
      delivery,
    });
  }

  async append(
    incidentId: string,
    channel: string,
    nowMs: number,
    delivery: OutboxDelivery,
  ): Promise<string> {
    const json = this.entryJson(incidentId, channel, nowMs, delivery);
    const id = await runScript(this.redis, "outbox-append", this.appendKeys(incidentId), [
      String(nowMs),
      incidentId,
      json,
    ]);
    return String(id);
  }

  /** Incidents whose queue is due, each leased to the caller for `leaseMs`. */
  async claimDue(nowMs: number, leaseMs: number, limit: number): Promise<string[]> {
    const ids = await runScript(
      this.redis,
      "outbox-claim",
      [`${this.prefix}:due`],
      [String(nowMs), String(leaseMs), String(limit)],
    );
    return (ids as string[]) ?? [];
  }

  /** Pushes the leases of incidents this poster holds further out (only those still queued). */
  async renewLease(incidentIds: readonly string[], untilMs: number): Promise<void> {
    await this.redis.zadd(`${this.prefix}:due`, "XX", ...incidentIds.flatMap((id) => [untilMs, id]));
  }

  /** The queue's oldest entry; a coded error (stored_record_invalid) when it cannot be read. */
  async head(incidentId: string): Promise<SlackOutboxEntry | undefined> {
    const key = this.queueKey(incidentId);
    const raw = await this.redis.lindex(key, 0);
    return raw ? readOutboxEntry(raw, key) : undefined;
  }

  /** Drops the head when it is still the one that could not be read; the queue is due again at `dueMs`. */
  async dropUnreadableHead(incidentId: string, dueMs: number): Promise<void> {
    const key = this.queueKey(incidentId);
    const raw = await this.redis.lindex(key, 0);
    if (raw === null) return;
    await runScript(
      this.redis,
      "outbox-drop-head",
      [key, `${this.prefix}:due`],
      [raw, incidentId, String(dueMs)],
    );
  }

  async done(entry: SlackOutboxEntry, nowMs: number): Promise<void> {
    await runScript(
      this.redis,
      "outbox-done",
      [this.queueKey(entry.incidentId), `${this.prefix}:due`, `${this.prefix}:try`],
      [entry.id, entry.incidentId, String(nowMs)],
    );
  }

  async attempt(id: string): Promise<Attempt> {
    const raw = await this.redis.hget(`${this.prefix}:try`, id);
    return raw ? (JSON.parse(raw) as Attempt) : { attempts: 0, unknown: false };
  }

  /** Records a failed attempt and when the incident's queue is due again. */
  async retryAt(entry: SlackOutboxEntry, attempt: Attempt, dueMs: number): Promise<void> {
    await this.redis.hset(`${this.prefix}:try`, entry.id, JSON.stringify(attempt));
    await this.redis.zadd(`${this.prefix}:due`, dueMs, entry.incidentId);
  }

  /** The entry after the head, when there is one (a card edit followed by another is skipped). */
  async next(incidentId: string): Promise<SlackOutboxEntry | undefined> {
    const key = this.queueKey(incidentId);
    const raw = await this.redis.lindex(key, 1);
    if (!raw) return undefined;
    try {
      return readOutboxEntry(raw, key);
    } catch {
      return undefined; // only looked at to skip a card edit; it is read again as the head
    }
  }

  /** Records an attempt at a message that is not an entry of its own (the root). */
  async saveAttempt(id: string, attempt: Attempt): Promise<void> {
    await this.redis.hset(`${this.prefix}:try`, id, JSON.stringify(attempt));
  }

  async clearAttempt(id: string): Promise<void> {
    await this.redis.hdel(`${this.prefix}:try`, id);
  }

  async messageTs(incidentId: string, name: string): Promise<string | undefined> {
    return (await this.redis.hget(`${this.prefix}:ts`, `${incidentId}|${name}`)) ?? undefined;
  }

  async saveTs(incidentId: string, name: string, ts: string): Promise<void> {
    await this.redis.hset(`${this.prefix}:ts`, `${incidentId}|${name}`, ts);
  }

  /** A queue's entries, oldest first (for inspection and tests). */
  async entries(queueId: string): Promise<SlackOutboxEntry[]> {
    const key = this.queueKey(queueId);
    const raw = await this.redis.lrange(key, 0, -1);
    return raw.map((entry) => readOutboxEntry(entry, key));
  }

  /** Messages owed to Slack, and when the oldest of them was written (for /metrics). */
  async backlog(): Promise<{ items: number; oldestMs?: number }> {
    const due = await this.redis.zrange(`${this.prefix}:due`, 0, -1);
    let items = 0;
    let oldestMs: number | undefined;
    for (const id of due) {
      const [length, head] = await Promise.all([
        this.redis.llen(this.queueKey(id)),
        this.redis.lindex(this.queueKey(id), 0),
      ]);
      items += length;
      const at = head ? Number((JSON.parse(head) as { createdAtMs?: number }).createdAtMs) : Number.NaN;
      if (Number.isFinite(at)) oldestMs = Math.min(oldestMs ?? at, at);
    }
    return { items, oldestMs };
  }

  async pending(): Promise<number> {
    const due = await this.redis.zrange(`${this.prefix}:due`, 0, -1);
    let n = 0;
    for (const id of due) n += await this.redis.llen(this.queueKey(id));
    return n;
  }
}
