// Processes end cleanly, as real processes sent real signals: SIGTERM and SIGINT end `serve`,
// `worker`, `start` and `dev` (exit 0); `start`'s worker child never outlives its parent, even
// while Redis hangs and even when the parent is killed outright; `dev` leaves no keys behind and
// stops the redis-server it started. Every wait is on the event (an exit, a line, a process gone).

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createConnection } from "node:net";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/util/free-port.js";
import { until } from "../../support/poll.js";
import { alertmanagerBody } from "../bot/harness.js";

const root = path.resolve(import.meta.dirname, "../../..");
const main = path.join(root, "src/cli/main.ts");
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function run(command: string, args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, ["--import", "tsx", main, command, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(running: Running, text: string, what: string): Promise<void> {
  await until(() => running.output().includes(text), what).catch((error: Error) => {
    throw new Error(`${error.message}\n${running.output()}`);
  });
}

function redisServer(port: number): ChildProcess {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  started.push(child);
  return child;
}

/** Running and not a zombie (an orphan nobody reaps still has a pid). */
function alive(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

async function keysOf(port: number, pattern: string): Promise<string[]> {
  const client = new Redis({ port, host: "127.0.0.1", lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return await client.keys(pattern);
  } finally {
    client.disconnect();
  }
}

const BOT_ENV = {
  SLACK_BOT_TOKEN: "xoxb-test",
  SLACK_SIGNING_SECRET: "signing-secret-for-the-test",
  SLACK_API_URL: "http://127.0.0.1:9/api/",
  ALERT_WEBHOOK_TOKEN: "webhook-token",
  INCIDENT_CHANNEL: "C0TEST",
  ICEBERG_CATALOG_URL: "http://127.0.0.1:9",
  BOT_CONFIG: "defaults: { approvers: [U0ALICE] }",
};

/**
 * `start` serves its worker child's metrics in its own scrape: a diagnosis job the child runs
 * (its sources unreachable) shows in the parent's iceberg_bot_jobs_total.
 */
async function scrapesItsWorkerChild(running: Running): Promise<void> {
  const port = /"port":(\d+),"mode"/.exec(running.output())?.[1];
  const base = `http://127.0.0.1:${port}`;
  const body = alertmanagerBody([{ table: "db.events" }]);
  const posted = await fetch(`${base}/webhooks/alertmanager`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${BOT_ENV.ALERT_WEBHOOK_TOKEN}` },
    body,
  });
  expect(posted.status).toBe(202);
  await until(
    async () =>
      /^iceberg_bot_jobs_total\{[^}]*queue="[^"]*diagnose[^"]*"[^}]*\} [1-9]/m.test(
        await (await fetch(`${base}/metrics`)).text(),
      ),
    "the worker child's diagnosis in start's /metrics",
    { intervalMs: 250 },
  );
}

async function startBot(command: "start" | "serve" | "worker", redisPort: number): Promise<Running> {
  const env = {
    ...BOT_ENV,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
  };
  const running = run(command, [], env);
  await waitFor(
    running,
    command === "worker" ? "worker health and metrics listening" : "iceberg-bot listening",
    `${command} to start`,
  );
  return running;
}

describe("signals", () => {
  it("SIGINT and SIGTERM end serve, worker and start cleanly (exit 0); start scrapes its worker child too", async () => {
    const redisPort = await freePort();
    const redis = redisServer(redisPort);
    try {
      for (const [command, signal] of [
        ["serve", "SIGINT"],
        ["worker", "SIGTERM"],
        ["start", "SIGINT"],
      ] as const) {
        const running = await startBot(command, redisPort);
        const workerChild = command === "start" ? childrenOf(running.child.pid!) : [];
        if (command === "start") await scrapesItsWorkerChild(running);
        running.child.kill(signal);
        expect(await running.exited, `${command} on ${signal}:\n${running.output()}`).toBe(0);
        expect(running.output()).toContain('"msg":"shutting down"');
        for (const pid of workerChild) await until(() => !alive(pid), `the worker child ${pid} to end`);
      }
    } finally {
      redis.kill("SIGKILL");
    }
  });

  it("start's worker child ends with its parent while Redis hangs: on SIGTERM, and when the parent is killed", async () => {
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      const redisPort = await freePort();
      const redis = redisServer(redisPort);
      try {
        const running = await startBot("start", redisPort);
        const workerChild = childrenOf(running.child.pid!);
        expect(workerChild.length).toBeGreaterThan(0);
        // Redis hangs: every command waits, nothing fails.
        redis.kill("SIGSTOP");
        running.child.kill(signal);
        await running.exited;
        for (const pid of workerChild)
          await until(() => !alive(pid), `the worker child ${pid} to end after ${signal}`);
      } finally {
        redis.kill("SIGCONT");
        redis.kill("SIGKILL");
      }
    }
  });

  it("dev on SIGTERM removes its keys, and on SIGINT stops the redis-server it started", async () => {
    const redisPort = await freePort();
    const redis = redisServer(redisPort);
    try {
      await until(async () => !(await refuses(redisPort)), "the test's redis-server");
      const running = run("dev", ["--port", String(await freePort())], {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      });
      await waitFor(running, "iceberg-bot dev: open", "dev to start");
      await until(async () => (await keysOf(redisPort, "*iceberg-bot-dev-*")).length > 0, "dev's keys");
      running.child.kill("SIGTERM");
      expect(await running.exited, running.output()).toBe(0);
      expect(await keysOf(redisPort, "*iceberg-bot-dev-*")).toEqual([]);
    } finally {
      redis.kill("SIGKILL");
    }

    // No Redis: dev starts its own, and stops it on Ctrl-C.
    const running = run("dev", ["--port", String(await freePort())], {
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    await waitFor(running, "iceberg-bot dev: open", "dev to start with a private redis-server");
    const port = Number(/private redis-server on port (\d+)/.exec(running.output())?.[1]);
    expect(await refuses(port)).toBe(false);
    running.child.kill("SIGINT");
    expect(await running.exited, running.output()).toBe(0);
    expect(await refuses(port)).toBe(true);
  });
});
