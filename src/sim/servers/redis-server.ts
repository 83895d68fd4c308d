// A private redis-server on loopback, for the demo, the benchmarks and the tests that stop,
// restart or lose their Redis: one way to start one, wait until it answers, and stop it.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { freePort } from "../../util/free-port.js";

export interface PrivateRedisOptions {
  /** Default: a free port. A restart passes the port (and dir) it had. */
  port?: number;
  /** Where it keeps its files (default: a temporary directory, removed on stop). */
  dir?: string;
  /** Keep an append-only file, so a restart on the same dir finds the data again (default off). */
  appendOnly?: boolean;
  /** The child's environment (PATH finds redis-server); default this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** The server's process, for a test that kills or pauses it. */
  child: ChildProcess;
  /**
   * Stops it (SIGTERM, or SIGKILL for a Redis that dies), waits for the exit, and removes the
   * directory it made for itself.
   */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

/** How long a new server may take to answer before it is taken as failed to start. */
const START_WAIT_MS = 10_000;

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined ? mkdtempSync(join(tmpdir(), "iceberg-bot-redis-")) : undefined;
  const dir = options.dir ?? (ownDir as string);
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      options.appendOnly ? "yes" : "no",
      "--dir",
      dir,
    ],
    { stdio: "ignore", ...(options.env ? { env: options.env } : {}) },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      await exited;
    }
    if (ownDir) rmSync(ownDir, { recursive: true, force: true });
  };
  const url = `redis://127.0.0.1:${port}`;
  const startedAt = Date.now();
  while (!(await redisAnswers(url))) {
    if (child.exitCode !== null || Date.now() - startedAt > START_WAIT_MS) {
      await stop("SIGKILL");
      throw new Error(`redis-server did not start on port ${port} (is redis-server on PATH?)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, port, child, stop };
}

/** True when a Redis at `url` answers PING (within a second). */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 1000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
