// Starts the whole bot for a test: the Slack stand-in, optionally the simulated lakehouse, and
// one or more bot processes (HTTP mode, random signing secret) on a private Redis namespace.
// The one place that builds the bot for tests: the remediation harness is a layer over this.

import { randomBytes } from "node:crypto";
import { type Config, loadConfig } from "../../../src/config.js";
import type { Report } from "../../../src/core/report/schema.js";
import { type Bot, type BotOptions, startBot } from "../../../src/main.js";
import type { DiagnoseFn } from "../../../src/services/incident/deps.js";
import { alertmanagerBody } from "../../../src/sim/alertmanager.js";
import type { SimClock } from "../../../src/sim/clock.js";
import { type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import type { Scenario } from "../../../src/sim/scenario/schema.js";
import { findButton, type SlackPerson } from "../../../src/sim/slack/person.js";
import { startSlackStandIn } from "../../../src/sim/slack/stand-in.js";
import type { SlackStandIn, SlackStandInOptions } from "../../../src/sim/slack/types.js";
import { until } from "../../support/poll.js";
import { REDIS_URL, type TestRedisScope, testRedisScope } from "../../support/redis.js";

export const CHANNEL = "C0INCIDENTS";
export const WEBHOOK_TOKEN = "webhook-token-for-tests";

export interface Harness {
  standIn: SlackStandIn;
  lakehouse?: Lakehouse;
  bots: Bot[];
  config: Config;
  secret: string;
  scope: TestRedisScope;
  url(path: string, bot?: number): string;
  /** Starts another bot process with the harness's options and these; stopped on close. */
  addBot(overrides?: Partial<BotOptions>): Promise<Bot>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The simulated lakehouse's scenario (a built-in name or a parsed one); none without. */
  scenario?: string | Scenario;
  /** How many bot processes to start (0: the test adds its own with addBot). */
  bots?: number;
  botOptions?: Partial<BotOptions>;
  env?: Record<string, string>;
  botConfig?: string;
  /** The stand-in's workspace (user groups, say). */
  standIn?: SlackStandInOptions;
  /** The lakehouse's clock (default: frozen at start); a running one for bots in other processes. */
  clock?: SimClock;
}

const DEFAULT_BOT_CONFIG = `
tables:
  db.events:
    flinkJobName: events-ingest
`;

export async function startHarness(label: string, options: HarnessOptions = {}): Promise<Harness> {
  const scope = testRedisScope(label);
  const standIn = await startSlackStandIn(options.standIn);
  const lakehouse = options.scenario
    ? await startLakehouse({ scenario: options.scenario, ...(options.clock ? { clock: options.clock } : {}) })
    : undefined;
  const secret = randomBytes(16).toString("hex");
  // A many-cluster scenario brings its own sources (BOT_CONFIG) instead of the four URLs.
  const { BOT_CONFIG: platformSources, ...platformUrls } = lakehouse?.env() ?? {};
  const config = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-stand-in",
    SLACK_SIGNING_SECRET: secret,
    SLACK_API_URL: standIn.apiUrl,
    REDIS_URL,
    ALERT_WEBHOOK_TOKEN: WEBHOOK_TOKEN,
    INCIDENT_CHANNEL: CHANNEL,
    BOT_CONFIG: `${options.botConfig ?? DEFAULT_BOT_CONFIG}\n${platformSources ?? ""}`,
    PORT: "0",
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
    SOURCE_TIMEOUT_MS: "3000",
    ...(platformSources
      ? platformUrls
      : lakehouse
        ? {
            ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
            FLINK_REST_URL: lakehouse.urls.flink,
            CONNECT_REST_URL: lakehouse.urls.connect,
            PROMETHEUS_URL: lakehouse.urls.prometheus,
          }
        : {}),
    ...options.env,
  });
  const bots: Bot[] = [];
  const addBot = async (overrides: Partial<BotOptions> = {}) => {
    const bot = await startBot(config, {
      namespace: scope.namespace,
      queuePrefix: scope.queuePrefix,
      queueNames: scope.queueNames,
      port: 0,
      backoffMs: 100,
      lockDurationMs: 2000,
      stalledIntervalMs: 1000,
      ...options.botOptions,
      ...(lakehouse ? { now: () => lakehouse.clock.now() } : {}),
      ...overrides,
    });
    bots.push(bot);
    return bot;
  };
  for (let i = 0; i < (options.bots ?? 1); i++) await addBot();
  return {
    standIn,
    lakehouse,
    bots,
    config,
    secret,
    scope,
    url: (path, bot = 0) => `http://127.0.0.1:${bots[bot]?.port}${path}`,
    addBot,
    async close() {
      await Promise.all(bots.map((b) => b.stop()));
      await standIn.close();
      await lakehouse?.close();
      await scope.cleanup();
    },
  };
}

/** A real Alertmanager v4 body for one or more alerts: the one builder, src/sim/alertmanager.ts. */
export { alertmanagerBody };

export async function postAlert(
  harness: Harness,
  body: string,
  options: { bot?: number; token?: string | null; path?: string } = {},
): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token !== null) headers.authorization = `Bearer ${options.token ?? WEBHOOK_TOKEN}`;
  const response = await fetch(harness.url(options.path ?? "/webhooks/alertmanager", options.bot), {
    method: "POST",
    headers,
    body,
  });
  return { status: response.status, body: await response.text() };
}

/**
 * A diagnosis function for tests about queues and Slack rather than evidence: it returns a
 * schema-valid report after `delayMs` and counts its calls. Evidence itself is tested against
 * the simulated lakehouse elsewhere.
 */
export function fixedDiagnosis(delayMs = 0) {
  const calls: string[] = [];
  const diagnose: DiagnoseFn = async (_ports, request, now) => {
    calls.push(request.table);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return { report: fixtureReport(request.table, now()) };
  };
  return { diagnose, calls };
}

export function fixtureReport(table: string, nowMs: number): Report {
  return {
    reportVersion: 1,
    table,
    generatedAt: new Date(nowMs).toISOString(),
    verdict: "commit-conflict",
    findings: [
      {
        id: "commit-conflict",
        severity: "critical",
        summary: `Commits to ${table} keep losing the race to another writer`,
        evidence: [
          { source: "flink", detail: "CommitFailedException in the committer, retries exhausted", data: {} },
        ],
      },
    ],
    nextStep: null,
    sources: {
      catalog: { status: "ok", latencyMs: 3 },
      flink: { status: "ok", latencyMs: 4 },
      connect: { status: "not-configured" },
      prometheus: { status: "not-configured" },
    },
  };
}

/** Polls until probe returns a value (Slack calls land asynchronously); fails saying what it waited for. */
export function eventually<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what = "the expected Slack messages",
): Promise<T> {
  return until(probe, what, { intervalMs: 50 });
}

/**
 * Resolves once the bot has nothing left to do (Bot.quiet), seen twice in a row: a finishing job
 * may queue the next. Tests wait on this before asserting that something did not happen, instead
 * of sleeping and hoping.
 */
export async function quiescent(harness: Harness): Promise<void> {
  const bot = harness.bots[0]!;
  let idleBefore = false;
  await until(
    async () => {
      const idle = await bot.quiet();
      const settled = idle && idleBefore;
      idleBefore = idle;
      return settled;
    },
    "the queues and the outbox to go quiet",
    { intervalMs: 100 },
  );
}

/** The approver of the walk tests' table. */
export const WALK_APPROVER = "U0ALICE";

/** db.events, written by the Flink job events-ingest, approved by WALK_APPROVER. */
export const WALK_BOT_CONFIG = `
defaults:
  approvers: [${WALK_APPROVER}]
tables:
  db.events:
    flinkJobName: events-ingest
`;

/**
 * A bot on the competing-appends lakehouse with the db.events incident open and its first
 * proposal (Apply button and all) in the thread. Follow-up checks are a minute apart, so nothing
 * moves on by itself while a test clicks.
 */
export async function startWithProposal(
  label: string,
  options: HarnessOptions = {},
): Promise<{ harness: Harness; rootTs: string }> {
  const harness = await startHarness(label, {
    scenario: "competing-appends",
    botConfig: WALK_BOT_CONFIG,
    ...options,
    botOptions: { remediation: { followUpIntervalMs: 60_000, diagnosisWaitMs: 5000 }, ...options.botOptions },
  });
  try {
    const fired = await postAlert(
      harness,
      alertmanagerBody([{ table: "db.events", labels: { job_name: "events-ingest" } }]),
    );
    if (fired.status !== 202) throw new Error(`the alert was answered ${fired.status}`);
    const rootTs = await eventually(() => {
      const root = harness.standIn
        .messages(CHANNEL)
        .find((m) => !m.thread_ts && !m.ephemeralUser && /db\.events/.test(m.text));
      // The proposal itself, not the card's copy of its button (the card may be edited first).
      const apply = root && findButton(harness.standIn, CHANNEL, root.ts, "playbook_apply");
      return root && apply && apply.message.ts !== root.ts ? root.ts : undefined;
    }, "the proposal");
    return { harness, rootTs };
  } catch (error) {
    await harness.close();
    throw error;
  }
}

/** A person in the incident channel, clicking through the harness's bot (`bot` picks one of several). */
export const slackPerson = (harness: Harness, user: string, bot = 0): SlackPerson => ({
  botUrl: harness.url("/slack/events", bot),
  signingSecret: harness.secret,
  standIn: harness.standIn,
  channel: CHANNEL,
  user,
});

const EVENTS_COMMIT = /^\/v1\/(prod\/)?namespaces\/db\/tables\/events$/;

/** Commits the catalog took for db.events (the bot's changes and reverts). */
export const eventsCommits = (harness: Harness): number =>
  harness.lakehouse!.requests.filter(
    (r) => r.service === "catalog" && r.method === "POST" && EVENTS_COMMIT.test(r.path),
  ).length;

/** db.events's incident card: the channel message that opens its thread. */
export const eventsCard = (harness: Harness) =>
  harness.standIn
    .messages(CHANNEL)
    .find((m) => !m.thread_ts && !m.ephemeralUser && /db\.events/.test(m.text));
