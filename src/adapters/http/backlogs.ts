// What every backlog owes, for /metrics: the BullMQ queues (waiting, prioritized and delayed jobs;
// the oldest by when it was added), the command inbox and the alert intake's promises (both by
// when they were recorded), and the Slack outbox (messages owed, oldest by when it was written).

import type { Queue } from "bullmq";
import type { RedisClient } from "../redis/connection.js";
import type { Backlog } from "./metrics.js";

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

export async function readBacklogs(sources: BacklogSources): Promise<Backlog[]> {
  const now = sources.now();
  const queues = await Promise.all(
    Object.entries(sources.queues).map(async ([backlog, queue]): Promise<Backlog> => {
      const counts = await queue.getJobCounts("waiting", "prioritized", "delayed");
      const items = Object.values(counts).reduce((a, b) => a + b, 0);
      // The oldest waiting job (BullMQ lists waiting jobs newest first; asc gives the oldest).
      const [oldest] =
        items > 0 ? await queue.getJobs(["waiting", "prioritized", "delayed"], 0, 0, true) : [];
      return { backlog, items, oldestSeconds: age(now, oldest?.timestamp) };
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
