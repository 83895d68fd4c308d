// docker-compose.yml with .env.example, as shipped: the `sim` service's command and the bot's
// environment are read from the two files and run as real processes (`iceberg-bot sim …` and
// `iceberg-bot start`). Only what Docker would provide is replaced: service host names and ports
// by loopback ones, Redis by a private redis-server, and the mounted BOT_CONFIG file by its source.
// An alert posted with the .env's token opens a thread in the Slack stand-in and gets a diagnosis.

import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { alertBody } from "../../src/cli/demo.js";
import { SHUTDOWN_DEADLINE_MS } from "../../src/main.js";
import { type PrivateRedis, startPrivateRedis } from "../../src/sim/servers/redis-server.js";
import { freePort } from "../../src/util/free-port.js";
import { type ComposeService, interpolate, readCompose, readDotEnv } from "../support/compose.js";
import { until } from "../support/poll.js";

const root = path.resolve(import.meta.dirname, "../..");
const main = path.join(root, "src/cli/main.ts");

const compose = readCompose(path.join(root, "docker-compose.yml"));

/** Five consecutive free loopback ports, as the sim's --port-base needs. */
async function freePortBase(): Promise<number> {
  const listen = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = await freePort();
    if (base > 65_000) continue;
    let ok = true;
    for (let i = 1; i < 5 && ok; i++) ok = await listen(base + i);
    if (ok) return base;
  }
}

/** A timeout's error with what the process printed, to see why. */
const explain = (out: { text: string }) => (error: Error) => {
  throw new Error(`${error.message}\n${out.text.slice(-4000)}`);
};

const children: ChildProcess[] = [];
const servers: PrivateRedis[] = [];
function run(args: string[], env: Record<string, string>, label: string) {
  const child = spawn(process.execPath, ["--import", "tsx", main, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const out = { text: "" };
  child.stdout?.on("data", (c: Buffer) => (out.text += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out.text += c.toString()));
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) out.text += `\n[${label} exited ${code}]`;
  });
  return { child, out };
}

afterAll(async () => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  // Redis last: the bot shuts down against it.
  for (const server of servers) await server.stop();
});

describe("docker compose up with .env.example", () => {
  const dotenv = readDotEnv(path.join(root, ".env.example"));
  const { bot, sim } = compose.services as { bot: ComposeService; sim: ComposeService };

  it("gives the bot a stop grace period longer than its shutdown deadline, and waits for the sim", () => {
    const grace = Number(/^(\d+)s$/.exec(bot.stop_grace_period ?? "")?.[1]) * 1000;
    expect(grace).toBeGreaterThan(SHUTDOWN_DEADLINE_MS);
    expect(bot.depends_on?.sim).toMatchObject({ required: false });
    // The .env's profile brings up the sim service, whose command serves the Slack stand-in.
    expect(dotenv.COMPOSE_PROFILES?.split(",")).toEqual(sim.profiles);
    expect(sim.command).toContain("--slack");
  });

  it("starts the bot with exactly compose's environment and walks an alert to a diagnosis", async () => {
    const base = await freePortBase();
    const httpPort = await freePort();
    const redis = await startPrivateRedis();
    servers.push(redis);
    const redisPort = redis.port;

    // Where Docker's network would take the bot: service names and container ports.
    const hostPorts: Record<string, string> = { "redis:6379": `127.0.0.1:${redisPort}` };
    for (let i = 0; i < 5; i++) hostPorts[`sim:${8181 + i}`] = `127.0.0.1:${base + i}`;
    const toLoopback = (value: string) => value.replace(/\b(redis|sim):(\d+)\b/g, (m) => hostPorts[m] ?? m);

    const simArgs = (sim.command ?? []).map((arg) => interpolate(arg, dotenv));
    const at = (flag: string) => simArgs.indexOf(flag) + 1;
    expect(simArgs[at("--port-base")]).toBe("8181");
    simArgs[at("--port-base")] = String(base);
    simArgs[at("--host")] = "127.0.0.1";
    simArgs[at("--advertise-host")] = "127.0.0.1";
    const lake = run(simArgs, {}, "sim");

    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(bot.environment ?? {}))
      env[name] = toLoopback(interpolate(value, dotenv));
    // The volume compose mounts at BOT_CONFIG's path, read from its source instead.
    for (const volume of bot.volumes ?? []) {
      const [source, target] = interpolate(volume, dotenv).split(":");
      if (target === env.BOT_CONFIG) env.BOT_CONFIG = path.resolve(root, source as string);
    }
    expect(env.BOT_CONFIG).toMatch(/\.ya?ml$/);
    // Empty values exactly as compose passes them (the config takes them as unset).
    expect(env.SOURCE_TIMEOUT_MS).toBe("");
    expect(env.LOG_LEVEL).toBe("");
    expect(Number(env.PORT)).toBe(3000);
    env.PORT = String(httpPort);

    await until(() => lake.out.text.includes("Press Ctrl-C"), "the simulated lakehouse and Slack");
    const started = run(bot.command ?? [], env, "start");
    const url = `http://127.0.0.1:${httpPort}`;
    await until(
      async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200,
      "the bot to be ready",
    ).catch(explain(started.out));

    const posted = await fetch(`${url}/webhooks/alertmanager`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${dotenv.ALERT_WEBHOOK_TOKEN}` },
      body: alertBody("db.events", "events-ingest", Date.now()),
    });
    expect(posted.status).toBe(202);

    const slack = toLoopback(env.SLACK_API_URL as string);
    const call = async (method: string, args: Record<string, string>) => {
      const response = await fetch(`${slack}${method}`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.SLACK_BOT_TOKEN}` },
        body: new URLSearchParams(args),
      });
      return (await response.json()) as { ok: boolean; messages?: Array<{ ts: string; text?: string }> };
    };
    const channel = dotenv.INCIDENT_CHANNEL as string;
    const thread = await until(async () => {
      const history = await call("conversations.history", { channel });
      const root = history.messages?.find((m) => /db\.events/.test(m.text ?? ""));
      if (!root) return undefined;
      const replies = await call("conversations.replies", { channel, ts: root.ts });
      const text = JSON.stringify(replies.messages ?? []);
      return /commit\.retry\.num-retries/.test(text) ? text : undefined;
    }, "a diagnosis in the thread").catch(explain(started.out));
    expect(thread).toMatch(/db\.events/);
  });
});
