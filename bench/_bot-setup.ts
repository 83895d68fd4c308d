// Shared setup for the bot benchmarks: a bot (or two) on a private Redis namespace, the Slack
// stand-in, signed Slack requests and percentile maths.

import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { loadConfig } from "../src/config.js";
import { type Bot, type BotOptions, startBot } from "../src/main.js";
import type { DiagnoseFn } from "../src/services/incident/deps.js";
import { alertmanagerBody } from "../src/sim/alertmanager.js";
import { signedHeaders } from "../src/sim/slack/signing.js";
import { startSlackStandIn } from "../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../src/sim/slack/types.js";
import { fixtureReport } from "../test/integration/bot/harness.js";
import { deleteKeysMatching, REDIS_URL } from "../test/support/redis.js";

export { REDIS_URL };
export const CHANNEL = "C0BENCH";

export interface BenchBots {
  bots: Bot[];
  standIn: SlackStandIn;
  secret: string;
  webhookToken: string;
  close(): Promise<void>;
}

export async function startBenchBots(
  label: string,
  count: number,
  options: Partial<BotOptions> = {},
  env: Record<string, string> = {},
): Promise<BenchBots> {
  const standIn = await startSlackStandIn();
  const secret = randomBytes(16).toString("hex");
  const webhookToken = randomBytes(16).toString("hex");
  const id = `${label}-${randomBytes(4).toString("hex")}`;
  const config = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_SIGNING_SECRET: secret,
    SLACK_API_URL: standIn.apiUrl,
    REDIS_URL,
    ALERT_WEBHOOK_TOKEN: webhookToken,
    INCIDENT_CHANNEL: CHANNEL,
    PORT: "0",
    LOG_LEVEL: "silent",
    ...env,
  });
  const bots: Bot[] = [];
  for (let i = 0; i < count; i++) {
    bots.push(
      await startBot(config, {
        namespace: `bench-${id}`,
        queuePrefix: `{bench-q-${id}}`,
        port: 0,
        ...options,
      }),
    );
  }
  return {
    bots,
    standIn,
    secret,
    webhookToken,
    async close() {
      await bots[0]?.queues.obliterate().catch(() => {});
      await Promise.all(bots.map((b) => b.stop()));
      await standIn.close();
      await deleteKeys([`{bench-${id}}:*`, `{bench-q-${id}}:*`]);
    },
  };
}

async function deleteKeys(patterns: string[]): Promise<void> {
  const redis = new Redis(REDIS_URL);
  await deleteKeysMatching(redis, patterns);
  await redis.quit();
}

export function signedSlashCommand(secret: string, text: string, n: number) {
  const body = new URLSearchParams({
    team_id: "T0BENCH",
    channel_id: CHANNEL,
    user_id: "U0BENCH",
    command: "/iceberg",
    text,
    response_url: "http://127.0.0.1:9/unused",
    trigger_id: `${Date.now()}.bench.${n}`,
  }).toString();
  return { body, headers: signedHeaders(secret, body, "application/x-www-form-urlencoded") };
}

export function alertBody(table: string, fingerprint: string): string {
  return alertmanagerBody([{ table, fingerprint }]);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return Math.round(sorted[Math.max(0, index)]! * 10) / 10;
}

export async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs `total` tasks with at most `limit` in flight; returns each task's latency in ms. */
export async function pooled(
  total: number,
  limit: number,
  task: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const latencies: number[] = new Array(total);
  let next = 0;
  const lane = async () => {
    while (next < total) {
      const i = next++;
      latencies[i] = await timed(() => task(i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, total) }, lane));
  return latencies;
}

/** A fixed report so intake benchmarks measure the bot, not evidence gathering. */
export const fixedDiagnose: DiagnoseFn = async (_ports, request, now) => ({
  report: fixtureReport(request.table, now()),
});
