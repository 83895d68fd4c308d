// Slash commands on their way from the receiver to the workers. The receiver's part is as small as
// a durable record can be: the commands of a burst go to Redis in one script, once it is over, that, for
// each, remembers its trigger id (a repeat delivery is dropped there) and appends it to a stream.
// A burst of requests reaches the receiver over many event-loop turns, and a socket write per turn
// was most of what recording cost it; the wait comes after every ack.
// Building queue jobs (BullMQ's scripts, msgpack, a job's options) costs the receiver several
// times that, in the burst of requests whose acks it is still sending; a worker moves each entry
// into its queue instead (inbox-mover.ts). Every key shares the store's hash tag, so the script
// runs on one Cluster slot.

import { type InboxCommand, InboxCommandSchema } from "../../core/jobs.js";
import { batchCalls } from "../redis/batch-calls.js";
import type { RedisClient } from "../redis/connection.js";
import { runScript } from "../redis/scripts.js";
import type { Keys } from "../store/keys.js";

/** The stream the commands wait in, and where a delivery's trigger id is remembered. */
type InboxKeys = Pick<Keys, "inbox" | "seen">;

export interface CommandInbox {
  /** Records the command once: resolves true when appended, false for a repeat delivery. */
  push(command: InboxCommand): Promise<boolean>;
  /** Commands recorded and not yet moved into a queue. */
  length(): Promise<number>;
}

/** The replay key's scope, shared with the replay guard's for other interactions. */
const COMMAND_SCOPE = "slack-command";

/** Bounds one script's size and the time its replies take to hand out: a 200-command burst is one. */
const MAX_BATCH = 500;

/**
 * A batch leaves once no command has come for INBOX_QUIET_MS, at the latest INBOX_BATCH_MS after
 * its first (each has been acknowledged already). Sent in the middle of a burst, the script, the
 * worker moving its entries into queues and the diagnoses they start all took CPU from the acks
 * still owed in that burst, which a bare Bolt app shares with nothing.
 */
const INBOX_QUIET_MS = 5;
const INBOX_BATCH_MS = 250;

export interface CommandInboxOptions {
  replayMemorySeconds: number;
  /** The longest the first command of a batch waits for others (default INBOX_BATCH_MS). */
  batchMs?: number;
  /**
   * Resolves once the batch is on the replicas REDIS_URL asks for (throws when it cannot be): a
   * command counts as recorded only when a failover would keep it.
   */
  confirmDurable?: () => Promise<void>;
}

export function createCommandInbox(
  redis: RedisClient,
  keys: InboxKeys,
  options: CommandInboxOptions,
): CommandInbox {
  const push = batchCalls<{ key: string; entry: string }, boolean>({
    maxBatch: MAX_BATCH,
    waitMs: options.batchMs ?? INBOX_BATCH_MS,
    quietMs: Math.min(INBOX_QUIET_MS, options.batchMs ?? INBOX_QUIET_MS),
    send: async (batch) => {
      const replies = (await runScript(
        redis,
        "command-inbox-push",
        [keys.inbox(), ...batch.map((item) => item.key)],
        [options.replayMemorySeconds, ...batch.map((item) => item.entry)],
      )) as number[];
      await options.confirmDurable?.();
      return replies.map((reply) => reply === 1);
    },
  });
  return {
    push: (command) =>
      push({ key: keys.seen(COMMAND_SCOPE, command.triggerId), entry: JSON.stringify(command) }),
    length: () => redis.xlen(keys.inbox()),
  };
}

/** An entry as the mover reads it back; undefined when it is not a command (it is then dropped). */
export function parseInboxEntry(entry: string): InboxCommand | undefined {
  try {
    const parsed = InboxCommandSchema.safeParse(JSON.parse(entry));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
