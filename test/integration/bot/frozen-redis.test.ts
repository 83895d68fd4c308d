// A Redis that hangs (its process stopped with SIGSTOP: the socket stays open, nothing answers)
// fails the bot's commands instead of holding them, and the alert webhook answers 503 within its
// deadline, which Alertmanager retries, instead of hanging the sender until its own timeout.

import { afterEach, describe, expect, it } from "vitest";
import { createRedisClient } from "../../../src/adapters/redis/connection.js";
import { loadConfig } from "../../../src/config.js";
import { startBot } from "../../../src/main.js";
import { alertmanagerBody } from "../../../src/sim/alertmanager.js";
import { type PrivateRedis, startPrivateRedis } from "../../../src/sim/servers/redis-server.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import { CHANNEL, eventually, WEBHOOK_TOKEN } from "./harness.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A private redis-server, resumed (if frozen) and killed after the test. */
async function privateRedis(): Promise<PrivateRedis> {
  const redis = await startPrivateRedis();
  cleanups.push(async () => {
    redis.child.kill("SIGCONT");
    await redis.stop("SIGKILL");
  });
  return redis;
}

describe("a Redis that hangs", () => {
  it("fails a command on a connected client with a timeout, on both connection roles", async () => {
    const redis = await privateRedis();
    const commands = createRedisClient(redis.url, "commands", { commandTimeoutMs: 300 });
    const blocking = createRedisClient(redis.url, "blocking", { commandTimeoutMs: 300 });
    cleanups.push(async () => {
      commands.disconnect();
      blocking.disconnect();
    });
    expect(await commands.ping()).toBe("PONG");
    expect(await blocking.ping()).toBe("PONG");
    redis.child.kill("SIGSTOP");
    await expect(commands.set("frozen", "1")).rejects.toThrow(/timed out/i);
    await expect(blocking.get("frozen")).rejects.toThrow(/timed out/i);
  });

  it("makes the alert webhook answer 503, which the sender retries", async () => {
    const redis = await privateRedis();
    const standIn = await startSlackStandIn();
    cleanups.push(() => standIn.close());
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-stand-in",
      SLACK_SIGNING_SECRET: "signing-secret-frozen-redis",
      SLACK_API_URL: standIn.apiUrl,
      REDIS_URL: redis.url,
      ALERT_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
      INCIDENT_CHANNEL: CHANNEL,
      BOT_CONFIG: "defaults:\n  approvers: [U0ALICE]\n",
      PORT: "0",
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    });
    const bot = await startBot(config, { role: "serve", port: 0, queuePrefix: "{frozen-redis}" });
    cleanups.push(() => bot.stop());
    const base = `http://127.0.0.1:${bot.port}`;
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200 || undefined, "ready");

    const post = () =>
      fetch(`${base}/webhooks/alertmanager`, {
        method: "POST",
        headers: { authorization: `Bearer ${WEBHOOK_TOKEN}`, "content-type": "application/json" },
        body: alertmanagerBody([{ table: "db.events" }]),
      });
    redis.child.kill("SIGSTOP");
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ ok: false, error: expect.stringMatching(/retry/) });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(
      /^iceberg_bot_webhook_rejected_total\{source="alertmanager",reason="unavailable"\} 1$/m,
    );

    // Once Redis answers again, the sender's retry is taken.
    redis.child.kill("SIGCONT");
    const retried = await eventually(async () => {
      const response = await post();
      return response.status === 202 ? response : undefined;
    }, "the retry to be accepted");
    expect(retried.status).toBe(202);
  });
});
