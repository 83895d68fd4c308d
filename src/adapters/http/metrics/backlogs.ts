// What every backlog owes, for /metrics: the BullMQ queues (waiting and prioritized jobs, by when
// they were added, and delayed jobs once they are due, by when they fell due), the command inbox
// and the alert intake's promises (both by when they were recorded), and the Slack outbox
// (messages owed, oldest by when it was written). A delayed job not due yet (the weekly sweep's
// next run, a retry's backoff) is not owed: counting it would age an idle bot's backlog.

import type { Queue } from "bullmq";
import type { RedisClient } from "../../redis/connection.js";
import type { Backlog } from "./registry.js";

export interface BacklogSources {
  redis: RedisClient;
  /** Backlog name -> its queue. */
  queues: Record<string, Queue>;
  /** The command inbox stream (ids carry Redis's time in ms). */
  inboxKey: string;
  /** The alert intake's promised jobs, scored by the wall-clock ms they were promised. */
  intakeKey: string;
  slackOutbox: { backlog(): Promise<{ items: number; oldestMs?: number }> };
  now: () => number;
}

const age = (now: number, at: number | undefined) =>
  at === undefined ? undefined : Math.max(0, (now - at) / 1000);

/**
 * BullMQ scores its delayed set by the time a job falls due, in ms, times 4096 (plus a counter
 * that keeps jobs due in the same ms apart; bullmq's getDelayedScore.lua).
 */
const DELAYED_SCORE_PER_MS = 0x1000;

/** Delayed jobs due by `now` (BullMQ moves them to waiting when a worker runs), and the first due. */
async function dueDelayed(redis: RedisClient, queue: Queue, now: number) {
  const key = queue.keys.delayed as string;
  const upTo = `(${(now + 1) * DELAYED_SCORE_PER_MS}`;
  const [count, first] = await Promise.all([
    redis.zcount(key, "-inf", upTo),
    redis.zrangebyscore(key, "-inf", upTo, "WITHSCORES", "LIMIT", 0, 1),
  ]);
  const dueAt = first[1] !== undefined ? Math.floor(Number(first[1]) / DELAYED_SCORE_PER_MS) : undefined;
  return { count, dueAt };
}

export async function readBacklogs(sources: BacklogSources): Promise<Backlog[]> {
  const now = sources.now();
  const queues = await Promise.all(
    Object.entries(sources.queues).map(async ([backlog, queue]): Promise<Backlog> => {
      const [counts, due] = await Promise.all([
        queue.getJobCounts("waiting", "prioritized"),
        dueDelayed(sources.redis, queue, now),
      ]);
      const waiting = Object.values(counts).reduce((a, b) => a + b, 0);
      // The oldest waiting job (BullMQ lists waiting jobs newest first; asc gives the oldest).
      const [oldest] = waiting > 0 ? await queue.getJobs(["waiting", "prioritized"], 0, 0, true) : [];
      const since = [oldest?.timestamp, due.dueAt].filter((at): at is number => at !== undefined);
      return {
        backlog,
        items: waiting + due.count,
        oldestSeconds: age(now, since.length > 0 ? Math.min(...since) : undefined),
      };
    }),
  );
  const { redis } = sources;
  const [inboxLength, inboxFirst, intakeCount, intakeFirst, outbox] = await Promise.all([
    redis.xlen(sources.inboxKey),
    redis.xrange(sources.inboxKey, "-", "+", "COUNT", 1),
    redis.zcard(sources.intakeKey),
    redis.zrange(sources.intakeKey, 0, 0, "WITHSCORES"),
    sources.slackOutbox.backlog(),
  ]);
  const inboxAt = inboxFirst[0] ? Number(inboxFirst[0][0].split("-")[0]) : undefined;
  const intakeAt = intakeFirst[1] !== undefined ? Number(intakeFirst[1]) : undefined;
  return [
    ...queues,
    { backlog: "command-inbox", items: inboxLength, oldestSeconds: age(now, inboxAt) },
    { backlog: "alert-intake", items: intakeCount, oldestSeconds: age(now, intakeAt) },
    { backlog: "slack-outbox", items: outbox.items, oldestSeconds: age(now, outbox.oldestMs) },
  ];
}

export interface QuietSources {
  /** Queues whose delayed jobs are owed work (retries in backoff), by name. */
  retried: readonly Queue[];
  /** Queues whose delayed jobs are not work now (scheduled follow-ups and sweeps). */
  scheduled: readonly Queue[];
  slackOutbox: { pending(): Promise<number> };
  commandInbox: { length(): Promise<number> };
}

/**
 * True when the bot owes nothing now: no job waiting, running or due for a retry, nothing owed
 * to Slack and no slash command waiting to be queued. A demo or a test waits on it (twice in a
 * row: a finishing job may queue the next) before reading the outcome.
 */
export async function isQuiet(sources: QuietSources): Promise<boolean> {
  const counts = await Promise.all([
    ...sources.retried.map((q) => q.getJobCounts("waiting", "active", "delayed")),
    ...sources.scheduled.map((q) => q.getJobCounts("waiting", "active", "prioritized")),
  ]);
  const jobs = counts.flatMap((c) => Object.values(c)).reduce((a, b) => a + b, 0);
  return (
    jobs === 0 && (await sources.slackOutbox.pending()) === 0 && (await sources.commandInbox.length()) === 0
  );
}
