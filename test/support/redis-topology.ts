// Real Redis topologies on loopback for the drills: a Cluster (primaries with replicas) made with
// redis-cli --cluster create, and a Sentinel group (primary, replica, Sentinels). Every server
// is a child process of the test on a free port, with its files in a temporary directory.

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "../../src/util/free-port.js";
import { until } from "./poll.js";

const run = promisify(execFile);

interface Server {
  port: number;
  child: ChildProcess;
}

/** Polls (through the suite's one polling helper) until probe holds; a probe that throws is "not yet". */
function waitFor(probe: () => Promise<boolean>, what: string): Promise<boolean> {
  return until(() => probe().catch(() => false), what, { intervalMs: 100 });
}

/** One command on a short-lived plain connection (no retries: a dead server answers at once). */
export async function ask(port: number, ...args: Array<string | number>): Promise<unknown> {
  const client = new Redis({
    port,
    host: "127.0.0.1",
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}

function startServer(binary: string, args: string[]): ChildProcess {
  const child = spawn(binary, args, { stdio: "ignore" });
  child.on("error", () => {});
  return child;
}

function stopAll(servers: Server[], dir: string): Promise<void> {
  return (async () => {
    await Promise.all(
      servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once("exit", () => resolve());
            s.child.kill("SIGKILL");
          }),
      ),
    );
    rmSync(dir, { recursive: true, force: true });
  })();
}

const COMMON = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"];

export interface RedisCluster {
  url: string;
  ports: number[];
  /** SIGKILL the node on `port` (a primary's replica takes over after the node timeout). */
  kill(port: number): void;
  stop(): Promise<void>;
}

/** A Cluster of `primaries` primaries with `replicas` replicas each; ready when every node says ok. */
export async function startCluster(primaries = 3, replicas = 1): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-cluster-"));
  const servers: Server[] = [];
  try {
    for (let i = 0; i < primaries * (1 + replicas); i++) {
      const port = await freePort();
      const child = startServer("redis-server", [
        "--port",
        String(port),
        ...COMMON,
        "--dir",
        dir,
        "--cluster-enabled",
        "yes",
        "--cluster-config-file",
        `nodes-${port}.conf`,
        "--cluster-node-timeout",
        "2000",
      ]);
      servers.push({ port, child });
    }
    for (const { port } of servers)
      await waitFor(async () => (await ask(port, "PING")) === "PONG", `node ${port}`);
    await run("redis-cli", [
      "--cluster",
      "create",
      ...servers.map((s) => `127.0.0.1:${s.port}`),
      "--cluster-replicas",
      String(replicas),
      "--cluster-yes",
    ]);
    for (const { port } of servers) {
      await waitFor(
        async () => /cluster_state:ok/.test(String(await ask(port, "CLUSTER", "INFO"))),
        `cluster state ok on ${port}`,
      );
    }
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
  const ports = servers.map((s) => s.port);
  return {
    url: `redis+cluster://${ports
      .slice(0, primaries)
      .map((p) => `127.0.0.1:${p}`)
      .join(",")}`,
    ports,
    kill(port) {
      servers.find((s) => s.port === port)?.child.kill("SIGKILL");
    },
    stop: () => stopAll(servers, dir),
  };
}

export interface SentinelGroup {
  url: string;
  name: string;
  primaryPort: number;
  replicaPort: number;
  sentinelPorts: number[];
  /** SIGKILL the current primary (no shutdown, no last write flushed to anyone). */
  killPrimary(): void;
  /** The port Sentinel names as primary now. */
  currentPrimary(): Promise<number>;
  stop(): Promise<void>;
}

export interface SentinelOptions {
  sentinels?: number;
  downAfterMs?: number;
  /** Extra query options for the URL (waitReplicas, ...). */
  query?: string;
}

/** A primary, one replica and `sentinels` Sentinels (quorum: a majority) watching it. */
export async function startSentinelGroup(options: SentinelOptions = {}): Promise<SentinelGroup> {
  const name = "mymaster";
  const dir = mkdtempSync(join(tmpdir(), "iceberg-bot-sentinel-"));
  const servers: Server[] = [];
  const count = options.sentinels ?? 3;
  try {
    const primaryPort = await freePort();
    servers.push({
      port: primaryPort,
      child: startServer("redis-server", ["--port", String(primaryPort), ...COMMON, "--dir", dir]),
    });
    await waitFor(async () => (await ask(primaryPort, "PING")) === "PONG", "the primary");
    const replicaPort = await freePort();
    servers.push({
      port: replicaPort,
      child: startServer("redis-server", [
        "--port",
        String(replicaPort),
        ...COMMON,
        "--dir",
        dir,
        "--replicaof",
        "127.0.0.1",
        String(primaryPort),
      ]),
    });
    await waitFor(
      async () => /master_link_status:up/.test(String(await ask(replicaPort, "INFO", "replication"))),
      "the replica to sync",
    );
    const sentinelPorts: number[] = [];
    for (let i = 0; i < count; i++) {
      const port = await freePort();
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          "bind 127.0.0.1",
          "protected-mode no",
          `dir ${dir}`,
          `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${Math.floor(count / 2) + 1}`,
          `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          "",
        ].join("\n"),
      );
      servers.push({ port, child: startServer("redis-sentinel", [file]) });
      sentinelPorts.push(port);
    }
    // Ready when every Sentinel knows the replica and the other Sentinels (needed to fail over).
    for (const port of sentinelPorts) {
      await waitFor(async () => {
        const replicas = (await ask(port, "SENTINEL", "REPLICAS", name)) as unknown[];
        const peers = (await ask(port, "SENTINEL", "SENTINELS", name)) as unknown[];
        return replicas.length >= 1 && peers.length >= count - 1;
      }, `sentinel ${port} to see the replica and its peers`);
    }
    const hosts = sentinelPorts.map((p) => `127.0.0.1:${p}`).join(",");
    const primary = { current: primaryPort };
    return {
      url: `redis+sentinel://${hosts}/${name}${options.query ? `?${options.query}` : ""}`,
      name,
      primaryPort,
      replicaPort,
      sentinelPorts,
      killPrimary() {
        const server = servers.find((s) => s.port === primary.current);
        server?.child.kill("SIGKILL");
      },
      async currentPrimary() {
        const [, port] = (await ask(sentinelPorts[0]!, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)) as [
          string,
          string,
        ];
        primary.current = Number(port);
        return primary.current;
      },
      stop: () => stopAll(servers, dir),
    };
  } catch (error) {
    await stopAll(servers, dir);
    throw error;
  }
}
