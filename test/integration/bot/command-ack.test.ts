// A slash command is acknowledged before it is recorded, so its ack never waits for Redis. The
// receiver records it in the command inbox and a worker queues it. When recording then fails
// (writes refused) or hangs (writes paused) while the connection is up, the person is told through
// the command's response_url; a recording still under way when they were told that lands later is
// told too. Each case runs against its own redis-server, which the test makes refuse or hold
// writes; the requests are signed and verified by Bolt's real receiver.

import { afterEach, describe, expect, it } from "vitest";
import { NOT_RECORDED_TEXT, RECORDED_LATE_TEXT } from "../../../src/adapters/slack/record.js";
import { createKeys } from "../../../src/adapters/store/keys.js";
import { loadConfig } from "../../../src/config.js";
import { type Bot, startBot } from "../../../src/main.js";
import { startPrivateRedis } from "../../../src/sim/servers/redis-server.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../../src/sim/slack/types.js";
import { ask } from "../../support/redis-topology.js";
import { postSigned, slashCommandBody } from "../../support/slack-signing.js";
import { CHANNEL, eventually, WEBHOOK_TOKEN } from "./harness.js";

const FORM = "application/x-www-form-urlencoded";
const SECRET = "signing-secret-command-ack";

interface Setup {
  bot: Bot;
  standIn: SlackStandIn;
  redisPort: number;
  url: string;
  /** Starts a worker on the same Redis and queues. */
  startWorker(): Promise<Bot>;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** A receiver alone (role serve) on a private Redis. */
async function setup(label: string): Promise<Setup> {
  const redis = await startPrivateRedis();
  const redisPort = redis.port;
  cleanups.push(() => redis.stop("SIGKILL"));
  const standIn = await startSlackStandIn();
  cleanups.push(() => standIn.close());
  const config = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: standIn.apiUrl,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    ALERT_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
    INCIDENT_CHANNEL: CHANNEL,
    BOT_CONFIG: "defaults:\n  approvers: [U0ALICE]\n",
    PORT: "0",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
  });
  const bot = await startBot(config, { role: "serve", port: 0, queuePrefix: `{${label}}` });
  cleanups.push(() => bot.stop());
  const base = `http://127.0.0.1:${bot.port}`;
  await eventually(async () => (await fetch(`${base}/readyz`)).status === 200 || undefined, "ready");
  const startWorker = async () => {
    const worker = await startBot(config, { role: "worker", queuePrefix: `{${label}}` });
    cleanups.push(() => worker.stop());
    return worker;
  };
  return { bot, standIn, redisPort, url: `${base}/slack/events`, startWorker };
}

const queued = async (bot: Bot) => Object.values(await bot.queues.depth()).reduce((a, b) => a + b, 0);
const inInbox = async (s: Setup) => Number(await ask(s.redisPort, "XLEN", createKeys().inbox()));

const diagnose = (s: Setup, responseId: string) =>
  postSigned(
    s.url,
    SECRET,
    slashCommandBody({
      text: "diagnose db.events",
      channelId: CHANNEL,
      responseUrl: s.standIn.responseUrl(responseId),
    }),
    FORM,
  );

describe("slash commands: acknowledged first, recorded after", () => {
  it("records the command after an ack that promised it, and a worker queues it once", async () => {
    const s = await setup("ack-ok");
    const response = await diagnose(s, "ok");
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ response_type: "ephemeral" });
    expect(JSON.parse(response.body).text).toMatch(/Diagnosing `?db\.events`?…/);
    // The receiver alone only records it: nothing is queued until a worker takes it.
    await eventually(async () => ((await inInbox(s)) === 1 ? true : undefined), "the recorded command");
    expect(await queued(s.bot)).toBe(0);
    const worker = await s.startWorker();
    await eventually(async () => ((await inInbox(s)) === 0 ? true : undefined), "the inbox emptied");
    const jobs = await worker.queues.diagnose.getJobs([
      "waiting",
      "active",
      "completed",
      "failed",
      "delayed",
    ]);
    expect(jobs.map((job) => job.data)).toEqual([
      expect.objectContaining({ kind: "command", command: "diagnose", table: "db.events", channel: CHANNEL }),
    ]);
    expect(s.standIn.responses.filter((r) => r.id === "ok")).toEqual([]);
  });

  it("tells the person through the response_url when Redis refuses the writes", async () => {
    const s = await setup("ack-refused");
    // The connection stays up; every write is refused (no replica can confirm it).
    await ask(s.redisPort, "CONFIG", "SET", "min-replicas-to-write", "1");
    const response = await diagnose(s, "refused");
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).text).toMatch(/Diagnosing/);
    const told = await eventually(
      () => s.standIn.responses.find((r) => r.id === "refused"),
      "the response_url answer",
    );
    expect(told.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: NOT_RECORDED_TEXT,
    });
    await ask(s.redisPort, "CONFIG", "SET", "min-replicas-to-write", "0");
    expect(await queued(s.bot)).toBe(0);
  });

  it("answers while Redis holds every write, and tells the person again when the command lands late", async () => {
    const s = await setup("ack-paused");
    // Writes wait until the test lifts the pause; reads and the connection itself go on.
    await ask(s.redisPort, "CLIENT", "PAUSE", "30000", "WRITE");
    // The ack arrives with the pause still on: it did not wait for Redis.
    const response = await diagnose(s, "paused");
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body).text).toMatch(/Diagnosing/);
    const told = await eventually(
      () => s.standIn.responses.find((r) => r.id === "paused"),
      "the response_url answer",
    );
    expect(told.body).toMatchObject({ text: NOT_RECORDED_TEXT });
    await ask(s.redisPort, "CLIENT", "UNPAUSE");
    // The recording held by the pause lands now: the person who heard it failed hears it did not.
    const late = await eventually(
      () => s.standIn.responses.filter((r) => r.id === "paused")[1],
      "the second response_url answer",
    );
    expect(late.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: RECORDED_LATE_TEXT,
    });
    expect(await inInbox(s)).toBe(1);
  });
});
