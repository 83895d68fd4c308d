// Backlog gauges on /metrics: with a receiver and no worker, an alert's diagnosis job waits in its
// queue, a slash command waits in the command inbox and a message waits in the Slack outbox; each
// shows as items owed with the age of the oldest, and nothing owed shows as 0.

import { Queue } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import { readBacklogs } from "../../../src/adapters/http/metrics/backlogs.js";
import { homeQueueId, SlackOutbox } from "../../../src/adapters/slack/outbox/outbox.js";
import { alertBody } from "../../../src/cli/demo.js";
import { loadConfig } from "../../../src/config.js";
import { type Bot, startBot } from "../../../src/main.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { until } from "../../support/poll.js";
import { REDIS_URL, testRedisScope } from "../../support/redis.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

const gauge = (text: string, name: string, backlog: string) =>
  Number(new RegExp(`^${name}\\{backlog="${backlog}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);

describe("backlog gauges", () => {
  it("show what each queue, inbox and the Slack outbox owes and for how long", async () => {
    const scope = testRedisScope("backlogs");
    cleanups.push(() => scope.cleanup());
    const standIn: SlackStandIn = await startSlackStandIn();
    cleanups.push(() => standIn.close());
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: "signing-secret-for-the-test",
      SLACK_API_URL: standIn.apiUrl,
      REDIS_URL,
      ALERT_WEBHOOK_TOKEN: "webhook-token",
      INCIDENT_CHANNEL: "C0BACKLOG",
      BOT_CONFIG: "defaults:\n  approvers: [U0ALICE]\n",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    });
    let clock = Date.now();
    const bot: Bot = await startBot(config, {
      role: "serve",
      port: 0,
      namespace: scope.namespace,
      queuePrefix: scope.queuePrefix,
      queueNames: scope.queueNames,
      wallClock: () => clock,
    });
    cleanups.push(() => bot.stop());
    const base = `http://127.0.0.1:${bot.port}`;
    const scrape = async () => (await fetch(`${base}/metrics`)).text();

    const before = await scrape();
    for (const backlog of [
      "diagnose",
      "slack",
      "remediation",
      "command-inbox",
      "alert-intake",
      "slack-outbox",
    ]) {
      expect(gauge(before, "iceberg_bot_backlog_items", backlog), backlog).toBe(0);
      expect(gauge(before, "iceberg_bot_backlog_oldest_seconds", backlog), backlog).toBe(0);
    }

    const posted = await fetch(`${base}/webhooks/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer webhook-token" },
      body: alertBody("db.events", undefined, Date.now()),
    });
    expect(posted.status).toBe(202);
    // A command recorded and a Slack message owed, neither taken by a worker (there is none).
    await scope.redis.xadd(bot.store.keys.inbox(), "*", "c", "{}");
    await new SlackOutbox(scope.redis, scope.namespace).append(homeQueueId("U0ALICE"), "", clock - 120_000, {
      kind: "home",
      user: "U0ALICE",
    });
    clock += 90_000;
    const after = await until(async () => {
      const text = await scrape();
      return gauge(text, "iceberg_bot_backlog_items", "diagnose") >= 1 ? text : undefined;
    }, "the diagnosis job in the backlog");
    expect(gauge(after, "iceberg_bot_backlog_oldest_seconds", "diagnose")).toBeGreaterThanOrEqual(60);
    expect(gauge(after, "iceberg_bot_backlog_items", "command-inbox")).toBe(1);
    expect(gauge(after, "iceberg_bot_backlog_oldest_seconds", "command-inbox")).toBeGreaterThanOrEqual(60);
    // The home view, and the opened incident's status card.
    expect(gauge(after, "iceberg_bot_backlog_items", "slack-outbox")).toBe(2);
    expect(gauge(after, "iceberg_bot_backlog_oldest_seconds", "slack-outbox")).toBeCloseTo(210, 0);
    expect(gauge(after, "iceberg_bot_backlog_items", "remediation")).toBe(0);
  });

  it("counts a delayed job only once it is due, aged from when it fell due", async () => {
    const scope = testRedisScope("backlog-delayed");
    cleanups.push(() => scope.cleanup());
    const queue = new Queue("sweep", { connection: scope.redis, prefix: scope.queuePrefix });
    cleanups.push(() => queue.close());
    const added = Date.now();
    // The weekly sweep's next run, an hour away here: nothing is owed until then.
    await queue.add("sweep", {}, { delay: 3_600_000, timestamp: added });
    const read = async (at: number) => {
      const all = await readBacklogs({
        redis: scope.redis,
        queues: { sweep: queue },
        inboxKey: `${scope.queuePrefix}:inbox`,
        intakeKey: `${scope.queuePrefix}:intake`,
        slackOutbox: { backlog: async () => ({ items: 0 }) },
        now: () => at,
      });
      return all.find((b) => b.backlog === "sweep");
    };
    expect(await read(added + 21 * 60_000)).toEqual({ backlog: "sweep", items: 0, oldestSeconds: undefined });
    // Due for an hour with no worker to run it: owed, for an hour (not since it was added).
    const late = await read(added + 2 * 3_600_000);
    expect(late?.items).toBe(1);
    expect(late?.oldestSeconds).toBeGreaterThanOrEqual(3_599);
    expect(late?.oldestSeconds).toBeLessThanOrEqual(3_601);
  });
});
