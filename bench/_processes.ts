// Processes for the side-by-side benchmarks: a private redis-server, the bot's own commands
// (`start`, `serve`, `worker`) run from the build as an operator runs them (the package's bin,
// dist/cli/main.js; run.ts builds it first), and small floor servers. Every process is ours and
// is stopped by the close() it comes with.

import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startPrivateRedis } from "../src/sim/servers/redis-server.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");

export interface Running {
  port: number;
  pid: number;
  close(): Promise<void>;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  await exited;
  clearTimeout(timer);
}

/** A non-persistent redis-server on a free port: the bots under test share nothing with anyone. */
export async function privateRedis(): Promise<{ url: string; close(): Promise<void> }> {
  const redis = await startPrivateRedis();
  return { url: redis.url, close: redis.stop };
}

/** Settings start-up insists on that the benchmarks do not exercise. */
const BENCH_DEFAULTS = {
  ALERT_WEBHOOK_TOKEN: "bench-webhook-token",
  // The load's commands must reach the workers (busy, as in an incident), not the rate limits.
  BOT_CONFIG:
    "defaults:\n  approvers: [U0BENCH]\nrateLimits:\n  commandsPerPerson: 10000\n  diagnosesPerTable: 10000\n",
};

/**
 * Runs `iceberg-bot <command>` from the build with `env` and waits for its "listening" line
 * (a worker has none: it waits for "started"). Extra node flags (e.g. --cpu-prof) go first.
 */
export async function botProcess(
  command: "start" | "serve" | "worker",
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<Running> {
  const child = spawn(process.execPath, [...nodeFlags, join(root, "dist/cli/main.js"), command], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...BENCH_DEFAULTS, ...env, PORT: "0", LOG_LEVEL: "info" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        let entry: { msg?: string; port?: number; role?: string };
        try {
          entry = JSON.parse(line) as typeof entry;
        } catch {
          continue;
        }
        if (entry.msg === "iceberg-bot listening" && entry.port) resolve(entry.port);
        if (command === "worker" && entry.msg === "started") resolve(0);
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`iceberg-bot ${command} exited with ${code}`)));
  });
  // Keep draining its log so a full pipe never blocks it.
  child.stdout?.resume();
  return { port, pid: child.pid ?? -1, close: () => stopChild(child) };
}

/**
 * Runs a bench script that prints {"port": n} once it listens (the floors). Node flags go first.
 * A .mjs script runs on node alone, as the built bot does; a .ts one through tsx.
 */
export async function scriptProcess(
  script: string,
  args: string[] = [],
  nodeFlags: string[] = [],
): Promise<Running> {
  const loader = script.endsWith(".ts") ? ["--import", "tsx"] : [];
  const child = spawn(process.execPath, [...nodeFlags, ...loader, join(here, script), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once("data", (chunk: Buffer) =>
      resolve((JSON.parse(chunk.toString()) as { port: number }).port),
    );
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { port, pid: child.pid ?? -1, close: () => stopChild(child) };
}

/** Runs a load generator in its own process and returns what it prints (JSON). */
export async function loadProcess<T>(script: string, input: unknown): Promise<T> {
  const child = spawn(process.execPath, ["--import", "tsx", join(here, script)], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin?.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
  return JSON.parse(out) as T;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc; undefined where there is
 * none. Latency under a shared machine's load swings from run to run; the CPU a server spends per
 * request does much less, so it tells a change in our own work apart from the neighbours'.
 */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
