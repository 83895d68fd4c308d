// The workers' half of the command inbox (command-inbox.ts): reads the stream as one consumer of a
// group shared by every worker, hands each command to `handle` (which queues its job), then
// acknowledges and deletes it, so the stream holds only what is still owed. An entry read by a
// worker that died before acknowledging it is taken over by another after `claimIdleMs`; the jobs
// it queues have fixed ids, so a command handled twice is queued once.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { RedisClient } from "../redis/connection.js";
import { type DrainLoop, startDrainLoop } from "./drain-loop.js";

export interface InboxMoverOptions {
  /** Reads block on this connection: it must be one of the mover's own. */
  blocking: RedisClient;
  /** Acknowledgements and take-overs. */
  redis: RedisClient;
  key: string;
  /** Returns once the command's job is queued; a throw leaves the entry for a later try. */
  handle(entry: string): Promise<void>;
  onError(error: Error): void;
  group?: string;
  /** An entry read this long ago and not acknowledged is taken as abandoned. */
  claimIdleMs?: number;
  /** How often abandoned entries are looked for. */
  claimEveryMs?: number;
  /** Entries per read. */
  batch?: number;
  /** How long one read waits for an entry before looking again. */
  blockMs?: number;
  /** Real time, for when to look for abandoned entries again (default Date.now). */
  now?: () => number;
}

/** Stops reading and waits for the entries being handled. */
export type InboxMover = DrainLoop;

export const INBOX_GROUP = "movers";
/** A consumer idle this long with nothing pending is a worker that is gone. */
const CONSUMER_IDLE_MS = 3_600_000;

type StreamEntries = [id: string, fields: string[] | null][];

/** Makes the group once (again after a FLUSHDB or a new primary without it). */
async function ensureGroup(redis: RedisClient, key: string, group: string): Promise<void> {
  try {
    // From the stream's start: what receivers wrote before any worker ran is owed too.
    await redis.xgroup("CREATE", key, group, "0", "MKSTREAM");
  } catch (error) {
    if (!String((error as Error).message).includes("BUSYGROUP")) throw error;
  }
}

/**
 * Every worker start is a new consumer; one gone an hour with nothing pending is forgotten. Looked
 * for at start and then hourly, not at every look for abandoned entries.
 */
async function forgetIdleConsumers(redis: RedisClient, key: string, group: string, self: string) {
  const consumers = (await redis.xinfo("CONSUMERS", key, group)) as unknown[][];
  for (const fields of consumers) {
    const info = new Map<unknown, unknown>();
    for (let i = 0; i + 1 < fields.length; i += 2) info.set(fields[i], fields[i + 1]);
    const name = String(info.get("name"));
    if (name !== self && Number(info.get("pending")) === 0 && Number(info.get("idle")) > CONSUMER_IDLE_MS)
      await redis.xgroup("DELCONSUMER", key, group, name);
  }
}

/** Hands each entry to `handle`, then acknowledges and deletes those handled. */
async function handleEntries(options: InboxMoverOptions, group: string, entries: StreamEntries) {
  const { redis, key } = options;
  const done: string[] = [];
  for (const [id, fields] of entries) {
    // Deleted since it was read (its handler acknowledged it meanwhile): nothing is owed.
    if (fields === null) {
      done.push(id);
      continue;
    }
    const entry = fields[fields.indexOf("c") + 1];
    try {
      if (entry !== undefined) await options.handle(entry);
      done.push(id);
    } catch (error) {
      options.onError(error as Error);
    }
  }
  if (done.length > 0)
    await redis
      .multi()
      .xack(key, group, ...done)
      .xdel(key, ...done)
      .exec();
}

export function startInboxMover(options: InboxMoverOptions): InboxMover {
  const { redis, key } = options;
  const group = options.group ?? INBOX_GROUP;
  const consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const batch = options.batch ?? 100;
  const claimIdleMs = options.claimIdleMs ?? 30_000;
  const claimEveryMs = options.claimEveryMs ?? 10_000;
  const now = options.now ?? Date.now;

  const handleAll = (entries: StreamEntries) => handleEntries(options, group, entries);

  let groupReady = false;
  let claimedAt = 0;
  let forgottenAt = Number.NEGATIVE_INFINITY;
  const pass = async () => {
    try {
      if (!groupReady) {
        await ensureGroup(redis, key, group);
        groupReady = true;
      }
      if (now() - claimedAt >= claimEveryMs) {
        claimedAt = now();
        const [, abandoned] = (await redis.xautoclaim(
          key,
          group,
          consumer,
          claimIdleMs,
          "0",
          "COUNT",
          batch,
        )) as [string, StreamEntries];
        if (abandoned.length > 0) await handleAll(abandoned);
      }
      if (now() - forgottenAt >= CONSUMER_IDLE_MS) {
        forgottenAt = now();
        await forgetIdleConsumers(redis, key, group, consumer);
      }
      const reply = (await options.blocking.xreadgroup(
        "GROUP",
        group,
        consumer,
        "COUNT",
        batch,
        "BLOCK",
        options.blockMs ?? 2000,
        "STREAMS",
        key,
        ">",
      )) as [string, StreamEntries][] | null;
      const entries = reply?.[0]?.[1] ?? [];
      if (entries.length > 0) await handleAll(entries);
    } catch (error) {
      // A group deleted with its stream (FLUSHDB, a new primary without it) is made again.
      groupReady = false;
      throw error;
    }
  };

  // A read blocked in Redis ends with the connection; entries being handled are finished first.
  return startDrainLoop({ pass, onError: options.onError, interrupt: () => options.blocking.disconnect() });
}
