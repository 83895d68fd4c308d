// `worker` as a real process serves /healthz, /readyz and /metrics on METRICS_PORT (the worker
// Deployment's probes and scrape): its own job counters and the process and runtime metrics. The
// three answer while Redis hangs (SIGSTOP: every command waits): each answer arrives while Redis
// is still stopped, within bounds the implementation sets below a probe's 1 s, and SIGTERM still
// ends it.

import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { SCRAPE_READ_MS } from "../../../src/adapters/http/metrics/registry.js";
import { READY_TIMEOUT_MS } from "../../../src/adapters/http/routes.js";
import { createKeys } from "../../../src/adapters/store/keys.js";
import { type PrivateRedis, startPrivateRedis } from "../../../src/sim/servers/redis-server.js";
import { freePort } from "../../../src/util/free-port.js";
import { readManifests } from "../../support/kustomize.js";
import { until } from "../../support/poll.js";

const root = path.resolve(import.meta.dirname, "../../..");
const main = path.join(root, "src/cli/main.ts");
const children: ChildProcess[] = [];
let redis: PrivateRedis | undefined;

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  redis?.child.kill("SIGCONT");
  await redis?.stop("SIGKILL");
});

/** A GET; a hung answer is caught by the test's own timeout (no wall-clock bound here). */
async function get(url: string) {
  const response = await fetch(url);
  return { status: response.status, text: await response.text() };
}

describe("the worker's health and metrics port", () => {
  it("serves probes and metrics, answers while Redis hangs, and stops on SIGTERM", async () => {
    const metricsPort = await freePort();
    redis = await startPrivateRedis();
    const { child: server } = redis;
    const worker = spawn(process.execPath, ["--import", "tsx", main, "worker"], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SLACK_BOT_TOKEN: "xoxb-test",
        SLACK_API_URL: "http://127.0.0.1:9/api/",
        ICEBERG_CATALOG_URL: "http://127.0.0.1:9",
        BOT_CONFIG: "defaults: { approvers: [U0ALICE] }",
        REDIS_URL: redis.url,
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(worker);
    let out = "";
    worker.stdout?.on("data", (c: Buffer) => (out += c.toString()));
    worker.stderr?.on("data", (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => worker.on("close", (code) => resolve(code)));
    const base = `http://127.0.0.1:${metricsPort}`;

    await until(() => out.includes("worker health and metrics listening"), "the worker's port").catch(
      (error: Error) => {
        throw new Error(`${error.message}\n${out}`);
      },
    );
    expect((await get(`${base}/healthz`)).status).toBe(200);
    await until(async () => (await get(`${base}/readyz`)).status === 200, "the worker to be ready");
    const metrics = (await get(`${base}/metrics`)).text;
    for (const name of [
      "iceberg_bot_jobs_total",
      "iceberg_bot_diagnosis_seconds",
      "iceberg_bot_slack_api_errors_total",
      "process_resident_memory_bytes",
      "nodejs_eventloop_lag_p99_seconds",
    ])
      expect(metrics).toContain(`# TYPE ${name} `);
    expect(metrics).toMatch(/^iceberg_bot_queue_jobs\{queue="[^"]+",state="waiting"\} 0$/m);

    // Slack refuses a channel: /readyz says the worker is not ready, but the probe the manifests
    // give workers (what a worker needs to take jobs: Redis) stays 200, so a Slack outage does not
    // make every worker unready and stall a rollout behind the PodDisruptionBudget.
    const deployment = readManifests(path.join(root, "deploy/kubernetes/worker.yaml"))[0]?.doc;
    const probe: string = deployment?.spec.template.spec.containers[0].readinessProbe.httpGet.path;
    const board = new Redis(redis.url);
    try {
      await board.hset(createKeys().slackHealth(), "channel:C0INCIDENTS", "not_in_channel");
      await until(async () => (await get(`${base}/readyz`)).status === 503, "the refused channel in /readyz");
      expect(JSON.parse((await get(`${base}/readyz`)).text).failing).toHaveProperty("slack_channel");
      expect((await get(`${base}${probe}`)).status).toBe(200);
      await board.del(createKeys().slackHealth());
      await until(async () => (await get(`${base}/readyz`)).status === 200, "the worker ready again");
    } finally {
      board.disconnect();
    }

    // Redis hangs: every command waits. The port still answers, /readyz says why. The bounds the
    // answers are given (not the machine's speed) are what keep them under a probe's second.
    expect(READY_TIMEOUT_MS).toBeLessThan(1000);
    expect(SCRAPE_READ_MS).toBeLessThan(1000);
    server.kill("SIGSTOP");
    try {
      const [health, ready, scraped] = await Promise.all([
        get(`${base}/healthz`),
        get(`${base}/readyz`),
        get(`${base}/metrics`),
      ]);
      expect(health.status).toBe(200);
      // These answers arrived while Redis is still stopped (it resumes only below): none waited.
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.text)).toMatchObject({
        ok: false,
        redis: `no answer within ${READY_TIMEOUT_MS} ms`,
      });
      expect(scraped.status).toBe(200);
      expect(scraped.text).toContain("# TYPE process_resident_memory_bytes gauge");
    } finally {
      server.kill("SIGCONT");
    }

    worker.kill("SIGTERM");
    expect([0, 1]).toContain(await exited);
  });
});
