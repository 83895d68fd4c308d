// The dashboard as an operator sees it: a real Prometheus server (Debian's `prometheus`, started
// here on loopback) scrapes a running bot under both job names the dashboard and the alert rules
// use, while the bot diagnoses an alert, sweeps the catalog, refuses a webhook and fails a Slack
// call; then every query of every panel in deploy/grafana/ is evaluated against it and each must
// return data without an error. A second case has Prometheus scrape a real `iceberg-bot start`
// process (its receiver, with the worker child's series served in the parent's /metrics) and finds
// the child's job counters and diagnosis durations there after a diagnosis. Waits are on
// Prometheus having the data, never on a clock.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { type PrivateRedis, startPrivateRedis } from "../../src/sim/servers/redis-server.js";
import { startSlackStandIn } from "../../src/sim/slack/stand-in.js";
import type { SlackStandIn } from "../../src/sim/slack/types.js";
import { freePort } from "../../src/util/free-port.js";
import { until } from "../support/poll.js";
import { alertmanagerBody, CHANNEL, type Harness, postAlert, startHarness } from "./bot/harness.js";
import { digests, SWEEP_BOT_CONFIG, slash } from "./sweep-support.js";

const root = resolve(import.meta.dirname, "../..");
const dashboard = JSON.parse(
  readFileSync(join(root, "deploy/grafana/iceberg-bot-dashboard.json"), "utf8"),
) as {
  panels: Array<{ title: string; targets?: Array<{ expr?: string }> }>;
};

/** A panel's query as Grafana would send it, with the dashboard's variables filled in. */
function expand(expr: string): string {
  return expr
    .replaceAll("$__rate_interval", "1m")
    .replaceAll("$__range", "1h")
    .replaceAll("$namespace", "test")
    .replaceAll("$job", "iceberg-bot.*");
}

/** Ends a child process this file started, waiting for its exit. */
async function end(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

let prometheus: ChildProcess | undefined;
let dir: string | undefined;
let h: Harness | undefined;
let bot: ChildProcess | undefined;
let botRedis: PrivateRedis | undefined;
let standIn: SlackStandIn | undefined;
let lakehouse: Lakehouse | undefined;
afterAll(async () => {
  await h?.close();
  await end(bot);
  await botRedis?.stop();
  await standIn?.close();
  await lakehouse?.close();
  await end(prometheus);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A Prometheus server scraping `target` every second under both of the bot's job names. */
async function startPrometheus(target: string) {
  await end(prometheus);
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = mkdtempSync(join(tmpdir(), "iceberg-bot-prometheus-"));
  const port = await freePort();
  // `start` serves both processes' metrics on one port: scraped under both job names.
  writeFileSync(
    join(dir, "prometheus.yml"),
    [
      "global: { scrape_interval: 1s, evaluation_interval: 1s }",
      "scrape_configs:",
      ...["iceberg-bot-receiver", "iceberg-bot-worker"].flatMap((job) => [
        `  - job_name: ${job}`,
        `    static_configs: [{ targets: ["${target}"], labels: { namespace: test } }]`,
      ]),
      "",
    ].join("\n"),
  );
  prometheus = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: "ignore" },
  );
  const api = `http://127.0.0.1:${port}/api/v1`;
  const query = async (expr: string) => {
    const response = await fetch(`${api}/query?query=${encodeURIComponent(expr)}`);
    return (await response.json()) as {
      status: string;
      error?: string;
      data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
  };
  await until(
    async () =>
      (await query('up{job="iceberg-bot-receiver"} == 1').catch(() => undefined))?.data?.result.length,
    "Prometheus to scrape the bot",
    { intervalMs: 200 },
  );
  return query;
}

describe("the Grafana dashboard against a real Prometheus", () => {
  it("has data for every panel's query after the bot diagnosed, swept, refused and failed", async () => {
    h = await startHarness("prom-dashboard", { scenario: "sweep-catalog", botConfig: SWEEP_BOT_CONFIG });
    const harness = h;
    const target = `127.0.0.1:${harness.bots[0]!.port}`;
    const query = await startPrometheus(target);

    // What the panels show: a diagnosis, a sweep, a refused webhook, a failed Slack call.
    harness.standIn.inject({ method: "chat.postMessage", kind: "status", status: 500, times: 1 });
    expect((await postAlert(harness, alertmanagerBody([{ table: "sales.orders" }]))).status).toBe(202);
    const refused = await fetch(harness.url("/webhooks/alertmanager"), { method: "POST", body: "{}" });
    expect(refused.status).toBe(401);
    expect((await slash(harness, "sweep")).status).toBe(200);
    await until(() => digests(harness).length > 0, "the sweep's digest");
    await until(
      () => harness.standIn.messages(CHANNEL).some((m) => m.thread_ts !== undefined),
      "the diagnosis in the thread",
    );

    const queries = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).flatMap((t) => (t.expr ? [{ panel: panel.title, expr: expand(t.expr) }] : [])),
    );
    expect(queries.length).toBeGreaterThanOrEqual(20);
    for (const { panel, expr } of queries) {
      const answer = await until(
        async () => {
          const result = await query(expr);
          expect(result.status, `${panel}: ${expr}: ${result.error}`).toBe("success");
          return (result.data?.result.length ?? 0) > 0 ? result : undefined;
        },
        `data for "${panel}" (${expr})`,
        { intervalMs: 500 },
      );
      expect(answer.data?.result.length).toBeGreaterThan(0);
    }
  });

  it("scrapes a real `start` process: the worker child's jobs and diagnosis durations are in the parent's series", async () => {
    const redis = await startPrivateRedis();
    botRedis = redis;
    standIn = await startSlackStandIn();
    lakehouse = await startLakehouse({ scenario: "competing-appends" });
    const httpPort = await freePort();
    const token = "webhook-token-for-start";
    bot = spawn(process.execPath, ["--import", "tsx", join(root, "src/cli/main.ts"), "start"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_LEVEL: "info",
        SLACK_BOT_TOKEN: "xoxb-stand-in",
        SLACK_SIGNING_SECRET: "signing-secret-for-the-test",
        SLACK_API_URL: standIn.apiUrl,
        ALERT_WEBHOOK_TOKEN: token,
        INCIDENT_CHANNEL: CHANNEL,
        BOT_CONFIG: "defaults: { approvers: [U0ALICE] }",
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        PORT: String(httpPort),
        ...lakehouse.env(),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    bot.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    bot.stderr?.on("data", (c: Buffer) => (out += c.toString()));
    const url = `http://127.0.0.1:${httpPort}`;
    await until(
      async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
      "start to be ready",
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${out.slice(-4000)}`);
    });
    const query = await startPrometheus(`127.0.0.1:${httpPort}`);
    // Before any diagnosis the child has counted nothing: what shows next is the child's.
    expect((await query("iceberg_bot_diagnosis_seconds_count > 0")).data?.result).toEqual([]);

    const posted = await fetch(`${url}/webhooks/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: alertmanagerBody([{ table: "db.events" }]),
    });
    expect(posted.status).toBe(202);

    const seen = async (expr: string) =>
      until(
        async () => {
          const result = await query(expr);
          expect(result.status, `${expr}: ${result.error}`).toBe("success");
          return (result.data?.result.length ?? 0) > 0 ? result.data!.result : undefined;
        },
        `${expr} in Prometheus`,
        { intervalMs: 250 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}\n${out.slice(-4000)}`);
      });
    const durations = await seen('iceberg_bot_diagnosis_seconds_count{job="iceberg-bot-worker"} > 0');
    expect(durations[0]!.metric.namespace).toBe("test");
    const jobs = await seen(
      'iceberg_bot_jobs_total{job="iceberg-bot-worker", queue=~".*diagnose.*", outcome="completed"} > 0',
    );
    expect(Number(jobs[0]!.value[1])).toBeGreaterThanOrEqual(1);
  });
});
