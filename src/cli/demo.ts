// `iceberg-bot demo [scenario]`: a whole incident against the simulated lakehouse, with the real
// bot (HTTP mode, workers, Redis) and the Slack stand-in, printed as the thread people would read.
// The run is a list of steps so later ones (approval, apply, follow-up) slot in after these.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { type Env, loadConfig } from "../config.js";
import { type Bot, startBot } from "../main.js";
import { type Lakehouse, startLakehouse } from "../sim/lakehouse.js";
import { loadScenario } from "../sim/scenarios.js";
import { approveStep, findButton } from "../sim/slack/person.js";
import { startSlackStandIn } from "../sim/slack/stand-in.js";
import { transcript } from "../sim/slack/transcript.js";
import type { SlackStandIn } from "../sim/slack/types.js";
import { freePort } from "../util/free-port.js";

export interface DemoOptions {
  scenario?: string;
  stdout: { write(chunk: string): unknown };
  env: Env;
  /** How long to wait for the diagnosis (default 30 s). */
  timeoutMs?: number;
}

export const DEMO_CHANNEL = "C0DEMO";
/** The on-call engineer who approves the step in the demo. */
export const DEMO_APPROVER = "U0DEMOONCALL";
/** The follow-up interval the demo uses instead of BOT_CONFIG's five minutes. */
const DEMO_FOLLOW_UP_MS = 500;

/** Exit codes as the CLI uses them: 0 done, 2 cannot run (no Redis), 1 the demo failed. */
export type DemoResult = 0 | 1 | 2;

interface DemoContext {
  options: DemoOptions;
  scenarioTable: string;
  writerJobName?: string;
  redisUrl: string;
  lakehouse?: Lakehouse;
  standIn?: SlackStandIn;
  bot?: Bot;
  webhookToken: string;
  signingSecret: string;
  namespace: string;
  /** False when the proposed step is one a person carries out (no Apply button). */
  canApply?: boolean;
  rootTs?: string;
  cleanups: Array<() => Promise<void>>;
}

type DemoStep = { title: string; run(ctx: DemoContext): Promise<void> };

const say = (ctx: DemoContext, line: string) => ctx.options.stdout.write(`${line}\n`);

const STEPS: DemoStep[] = [
  {
    title: "start the simulated lakehouse and the Slack stand-in",
    async run(ctx) {
      ctx.lakehouse = await startLakehouse({ scenario: ctx.options.scenario ?? "competing-appends" });
      ctx.cleanups.push(() => ctx.lakehouse!.close());
      ctx.standIn = await startSlackStandIn();
      ctx.cleanups.push(() => ctx.standIn!.close());
    },
  },
  {
    title: "start the bot (HTTP mode) and its workers",
    async run(ctx) {
      const { lakehouse, standIn } = ctx;
      const writer = ctx.writerJobName ? `\n    flinkJobName: ${ctx.writerJobName}` : "";
      const config = loadConfig({
        SLACK_BOT_TOKEN: "xoxb-stand-in",
        SLACK_SIGNING_SECRET: ctx.signingSecret,
        SLACK_API_URL: standIn!.apiUrl,
        REDIS_URL: ctx.redisUrl,
        ICEBERG_CATALOG_URL: lakehouse!.urls.catalog,
        FLINK_REST_URL: lakehouse!.urls.flink,
        CONNECT_REST_URL: lakehouse!.urls.connect,
        PROMETHEUS_URL: lakehouse!.urls.prometheus,
        ALERT_WEBHOOK_TOKEN: ctx.webhookToken,
        INCIDENT_CHANNEL: DEMO_CHANNEL,
        BOT_CONFIG: `defaults:\n  approvers: [${DEMO_APPROVER}]\n  followUp: { intervalSeconds: 300, checks: 6 }\ntables:\n  ${ctx.scenarioTable}:${writer || " {}"}\n`,
        PORT: "0",
        LOG_LEVEL: ctx.options.env.LOG_LEVEL ?? "silent",
      });
      ctx.bot = await startBot(config, {
        namespace: ctx.namespace,
        queuePrefix: `{${ctx.namespace}}`,
        now: () => lakehouse!.clock.now(),
        remediation: { followUpIntervalMs: DEMO_FOLLOW_UP_MS },
      });
      const bot = ctx.bot;
      ctx.cleanups.push(async () => {
        await bot.queues.obliterate().catch(() => {});
        await deleteNamespace(ctx.redisUrl, ctx.namespace);
        await bot.stop();
      });
    },
  },
  {
    title: "fire an Alertmanager alert for the table",
    async run(ctx) {
      const response = await fetch(`http://127.0.0.1:${ctx.bot!.port}/webhooks/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${ctx.webhookToken}` },
        body: alertBody(ctx.scenarioTable, ctx.writerJobName, ctx.lakehouse!.clock.now()),
      });
      if (response.status !== 202)
        throw new Error(`the webhook answered ${response.status}: ${await response.text()}`);
    },
  },
  {
    title: "wait for the diagnosis in the thread",
    async run(ctx) {
      const deadline = Date.now() + (ctx.options.timeoutMs ?? 30_000);
      const standIn = ctx.standIn!;
      for (;;) {
        const root = standIn.messages(DEMO_CHANNEL).find((m) => !m.thread_ts && !m.ephemeralUser);
        if (root && standIn.thread(DEMO_CHANNEL, root.ts).length >= 2) {
          ctx.rootTs = root.ts;
          // Let the card edit that follows the diagnosis land too.
          await new Promise((resolve) => setTimeout(resolve, 300));
          return;
        }
        if (Date.now() > deadline) throw new Error("no diagnosis was posted in time");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  },
  {
    title: "wait for the proposed step",
    async run(ctx) {
      await until(
        ctx,
        () => findButton(ctx.standIn!, DEMO_CHANNEL, ctx.rootTs!, "playbook_done"),
        "a proposal",
      );
      ctx.canApply = findButton(ctx.standIn!, DEMO_CHANNEL, ctx.rootTs!, "playbook_apply") !== undefined;
      if (!ctx.canApply)
        say(ctx, "    (the step is one a person carries out; the demo stops at the proposal)");
    },
  },
  {
    title: `approve it as <@${DEMO_APPROVER}> (Apply, then the form; signed requests into Bolt)`,
    async run(ctx) {
      if (!ctx.canApply) return;
      await approveStep(
        {
          botUrl: `http://127.0.0.1:${ctx.bot!.port}/slack/events`,
          signingSecret: ctx.signingSecret,
          standIn: ctx.standIn!,
          channel: DEMO_CHANNEL,
          user: DEMO_APPROVER,
        },
        ctx.rootTs!,
        "Spark backfill keeps winning the commit race; more retries should let the writer through",
      );
    },
  },
  {
    title: "the simulated catalog takes the commit; six simulated minutes pass",
    async run(ctx) {
      if (!ctx.canApply) return;
      const lakehouse = ctx.lakehouse!;
      await until(
        ctx,
        () =>
          lakehouse.requests.some(
            (r) => r.service === "catalog" && r.method === "POST" && r.path.includes("/tables/"),
          ),
        "the catalog commit",
      );
      // Time moves only once the bot has recorded the change, so the writer's next snapshot is after it.
      await until(
        ctx,
        () => JSON.stringify(ctx.standIn!.thread(DEMO_CHANNEL, ctx.rootTs!)).includes("Applied by"),
        "the change to be recorded",
      );
      lakehouse.advance(6 * 60_000);
    },
  },
  {
    title: "follow-up checks until the writer commits again",
    async run(ctx) {
      if (!ctx.canApply) return;
      await until(
        ctx,
        () => {
          const root = ctx.standIn!.thread(DEMO_CHANNEL, ctx.rootTs!)[0];
          return root !== undefined && /commits resumed/.test(root.text);
        },
        "the incident to resolve",
      );
      // Let the last message edits land before printing.
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
  },
  {
    title: "print the thread",
    async run(ctx) {
      say(ctx, "");
      say(ctx, transcript(ctx.standIn!, DEMO_CHANNEL, ctx.rootTs!));
      say(ctx, "");
    },
  },
];

/** Polls `probe` until it holds, within the demo's time budget. */
async function until(ctx: DemoContext, probe: () => unknown, what: string): Promise<void> {
  const deadline = Date.now() + (ctx.options.timeoutMs ?? 30_000);
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const scenario = loadScenario(options.scenario ?? "competing-appends");
  const ctx: DemoContext = {
    options,
    scenarioTable: scenario.table,
    writerJobName: scenario.flink?.jobs[0]?.name,
    redisUrl: options.env.REDIS_URL ?? "redis://127.0.0.1:6379",
    webhookToken: randomBytes(16).toString("hex"),
    signingSecret: randomBytes(16).toString("hex"),
    namespace: `iceberg-bot-demo-${randomBytes(4).toString("hex")}`,
    cleanups: [],
  };
  try {
    const redis = await findRedis(ctx);
    if (!redis) {
      say(ctx, `No Redis answers at ${ctx.redisUrl}, and redis-server is not on PATH.`);
      say(ctx, "Start one with `docker compose up -d redis` (or set REDIS_URL), then run the demo again.");
      return 2;
    }
    say(ctx, `Demo: scenario ${scenario.name}, table ${scenario.table}`);
    for (const [index, step] of STEPS.entries()) {
      say(ctx, `[${index + 1}/${STEPS.length}] ${step.title}`);
      await step.run(ctx);
    }
    return 0;
  } catch (error) {
    say(ctx, `The demo stopped: ${(error as Error).message}`);
    return 1;
  } finally {
    for (const cleanup of ctx.cleanups.reverse()) await cleanup().catch(() => {});
  }
}

/** Uses REDIS_URL when it answers; otherwise starts a private, non-persistent redis-server. */
async function findRedis(ctx: DemoContext): Promise<boolean> {
  if (await pings(ctx.redisUrl)) return true;
  // PATH comes from the injected environment, like every other setting.
  const env = { PATH: ctx.options.env.PATH ?? "" };
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore", env }).status !== 0) return false;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-demo-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    { stdio: "ignore", env },
  );
  ctx.cleanups.push(async () => {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  ctx.redisUrl = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await pings(ctx.redisUrl)) {
      say(ctx, `Started a private redis-server on port ${port} for this demo.`);
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

async function pings(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

async function deleteNamespace(url: string, namespace: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `{${namespace}}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== "0");
  } finally {
    await client.quit().catch(() => {});
  }
}

function alertBody(table: string, jobName: string | undefined, nowMs: number): string {
  const labels: Record<string, string> = { alertname: "IcebergCommitStalled", severity: "critical", table };
  if (jobName) labels.job_name = jobName;
  return JSON.stringify({
    version: "4",
    status: "firing",
    receiver: "iceberg-bot",
    groupKey: `{}:{alertname="IcebergCommitStalled", table="${table}"}`,
    truncatedAlerts: 0,
    groupLabels: { alertname: "IcebergCommitStalled", table },
    commonLabels: labels,
    commonAnnotations: {},
    externalURL: "http://127.0.0.1:9093",
    alerts: [
      {
        status: "firing",
        labels,
        annotations: {
          summary: `No successful Iceberg commit for ${table}`,
          description: "elapsedSecondsSinceLastSuccessfulCommit is above 3600",
        },
        startsAt: new Date(nowMs - 5 * 60_000).toISOString(),
        endsAt: "0001-01-01T00:00:00Z",
        generatorURL: "http://127.0.0.1:9090/graph",
        fingerprint: randomBytes(8).toString("hex"),
      },
    ],
  });
}
