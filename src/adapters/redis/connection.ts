// The one place Redis connections are made, for every topology REDIS_URL can name (standalone,
// Sentinel, Cluster). Store, queues, workers, readiness and tests all take their clients here,
// so a topology works everywhere once it works here.

import { Cluster, type ClusterOptions, Redis, type RedisOptions } from "ioredis";
import { CodedError, ErrorCode } from "../../errors.js";
import { describeTopology, parseRedisUrl, type RedisTopology } from "../../redis-url.js";

/** A connected client of any topology; Redis and Cluster share the command API the bot uses. */
export type RedisClient = Redis | Cluster;

/**
 * "commands": store, claims and queue producers. A command fails after a few reconnect attempts,
 * so alert intake answers 5xx (the sender retries) instead of hanging through a failover.
 * "blocking": BullMQ workers. BullMQ requires maxRetriesPerRequest: null there, because its
 * blocking commands must wait out a reconnect rather than fail.
 */
export type ConnectionRole = "commands" | "blocking";

/**
 * How long a command may go unanswered before it fails ("Command timed out"): a Redis that hangs
 * (paused, swapping, a stopped process keeping its socket open) fails the caller instead of
 * holding it for as long as the socket lives. Commands get longer than any WAIT the topology
 * asks for; blocking connections longer than any block the bot or BullMQ asks for (10 s at most).
 */
const COMMAND_TIMEOUT_MS = 10_000;
const BLOCKING_COMMAND_TIMEOUT_MS = 30_000;

export interface RedisClientOptions {
  connectionName?: string;
  /** Overrides the role's command timeout (COMMAND_TIMEOUT_MS, BLOCKING_COMMAND_TIMEOUT_MS). */
  commandTimeoutMs?: number;
  lazyConnect?: boolean;
  /** Reconnect delay by attempt (Sentinel and Cluster included); ioredis's default otherwise. */
  retryStrategy?: (times: number) => number;
}

export function createRedisClient(
  topologyOrUrl: RedisTopology | string,
  role: ConnectionRole,
  options: RedisClientOptions = {},
): RedisClient {
  const topology = typeof topologyOrUrl === "string" ? parseRedisUrl(topologyOrUrl) : topologyOrUrl;
  const base: RedisOptions = {
    maxRetriesPerRequest: role === "blocking" ? null : 3,
    commandTimeout:
      options.commandTimeoutMs ??
      (role === "blocking"
        ? BLOCKING_COMMAND_TIMEOUT_MS
        : Math.max(COMMAND_TIMEOUT_MS, topology.waitTimeoutMs + 1000)),
    ...(options.connectionName ? { connectionName: options.connectionName } : {}),
    // A primary demoted by a failover answers writes with READONLY: reconnect and send again, so
    // the client follows Sentinel to the new primary.
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  const tls = topology.tls
    ? { ...(topology.tlsServername ? { servername: topology.tlsServername } : {}) }
    : undefined;
  switch (topology.kind) {
    case "standalone":
      return new Redis(topology.url, {
        ...base,
        lazyConnect: options.lazyConnect ?? false,
        ...(options.retryStrategy ? { retryStrategy: options.retryStrategy } : {}),
      });
    case "sentinel":
      return new Redis({
        ...base,
        lazyConnect: options.lazyConnect ?? false,
        sentinels: topology.sentinels,
        name: topology.name,
        role: "master",
        db: topology.db,
        ...(topology.username ? { username: topology.username } : {}),
        ...(topology.password ? { password: topology.password } : {}),
        ...(topology.sentinelUsername ? { sentinelUsername: topology.sentinelUsername } : {}),
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(tls ? { tls, enableTLSForSentinelMode: true } : {}),
        ...(topology.sentinelTls ? { sentinelTLS: tls ?? {} } : {}),
        // No failoverDetector: its disconnect can race a reconnect in progress and end the client
        // for good. A killed primary drops the connection, and a demoted one answers READONLY,
        // which reconnectOnError turns into a reconnect through the Sentinels.
        sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
        retryStrategy: options.retryStrategy ?? ((times) => Math.min(times * 100, 1000)),
      });
    case "cluster": {
      const clusterOptions: ClusterOptions = {
        lazyConnect: options.lazyConnect ?? false,
        redisOptions: {
          ...base,
          ...(topology.username ? { username: topology.username } : {}),
          ...(topology.password ? { password: topology.password } : {}),
          ...(tls ? { tls } : {}),
        },
        // TLS certificates name hosts, not the addresses DNS resolves them to (managed offerings).
        ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
        clusterRetryStrategy: options.retryStrategy ?? ((times) => Math.min(times * 100, 1000)),
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 200,
        slotsRefreshTimeout: 2000,
      };
      return new Cluster(topology.nodes, clusterOptions);
    }
  }
}

export interface PrimaryStatus {
  ok: boolean;
  topology: RedisTopology["kind"];
  /** Hosts and names only (never credentials). */
  describe: string;
  /** host:port of the primary that serves the bot's keys, when known. */
  primary?: string;
  error?: string;
}

/**
 * Whether a primary that takes the bot's writes answers: ROLE says "master" (standalone,
 * Sentinel), or the cluster is in state ok and the master of the bot's slot answers.
 */
export async function checkPrimary(
  client: RedisClient,
  topology: RedisTopology,
  hashTagKey: string,
): Promise<PrimaryStatus> {
  const status = { topology: topology.kind, describe: describeTopology(topology) };
  try {
    if (client instanceof Cluster) {
      // A primary whose connection is down is likely gone by a failover: read the table first.
      if (primaryFor(client, hashTagKey)?.status !== "ready") await refreshSlots(client);
      const first = await clusterPrimary(client, hashTagKey).catch((error: Error) => ({
        ok: false,
        error: error.message,
      }));
      if (first.ok) return { ...status, ...first };
      // An idle client keeps the slot table of before a failover until a command is redirected:
      // read the table again, so readiness follows the cluster within one probe.
      await refreshSlots(client);
      return { ...status, ...(await clusterPrimary(client, hashTagKey)) };
    }
    const role = (await client.call("ROLE")) as [string, ...unknown[]];
    const primary = client.stream?.remoteAddress
      ? `${client.stream.remoteAddress}:${client.stream.remotePort}`
      : undefined;
    if (role[0] !== "master")
      return { ...status, ok: false, primary, error: `connected node is a ${role[0]}` };
    return { ...status, ok: true, ...(primary ? { primary } : {}) };
  } catch (error) {
    return { ...status, ok: false, error: (error as Error).message };
  }
}

async function clusterPrimary(
  client: Cluster,
  hashTagKey: string,
): Promise<{ ok: boolean; primary?: string; error?: string }> {
  const info = String(await client.cluster("INFO"));
  if (!/cluster_state:ok/.test(info)) return { ok: false, error: "cluster_state is not ok" };
  const node = primaryFor(client, hashTagKey);
  if (!node) return { ok: false, error: "no primary serves the bot's slot" };
  const primary = `${node.options.host}:${node.options.port}`;
  const role = (await node.call("ROLE")) as [string, ...unknown[]];
  return role[0] === "master"
    ? { ok: true, primary }
    : { ok: false, primary, error: `the node serving the bot's slot is a ${role[0]}` };
}

function refreshSlots(client: Cluster): Promise<void> {
  return new Promise((resolve) => client.refreshSlotsCache(() => resolve()));
}

/**
 * Makes writes already acknowledged by Redis survive a failover: WAIT until the replicas REDIS_URL
 * asks for hold everything this client wrote (for a Cluster, on the primary of the bot's slot).
 * Only replicas connected now are waited for: a primary left alone (its replica was promoted
 * away from it, or is gone) has no replica a failover could promote, so waiting would only stop
 * intake. Throws a retryable coded error when too few replicas confirm in time.
 */
export async function confirmReplicated(
  client: RedisClient,
  topology: RedisTopology,
  hashTagKey: string,
): Promise<void> {
  if (topology.waitReplicas <= 0) return;
  const node = client instanceof Cluster ? primaryFor(client, hashTagKey) : client;
  if (!node) throw notReplicated("No Redis primary serves the bot's keys right now.");
  // ROLE on a primary lists its online replicas; on a demoted node it says "slave".
  const role = (await node.call("ROLE")) as [string, unknown, unknown[]?];
  if (role[0] !== "master") throw notReplicated(`The Redis node written to is now a ${role[0]}.`);
  const wanted = Math.min(topology.waitReplicas, Array.isArray(role[2]) ? role[2].length : 0);
  if (wanted === 0) return;
  const acknowledged = Number(await node.call("WAIT", wanted, topology.waitTimeoutMs));
  if (acknowledged < wanted) {
    throw notReplicated(
      `Only ${acknowledged} of ${wanted} Redis replicas confirmed the write within ${topology.waitTimeoutMs} ms.`,
    );
  }
}

function notReplicated(message: string): CodedError {
  return new CodedError(ErrorCode.Internal, message, {
    retryable: true,
    hint: "A failover is under way or a replica lags; the sender retries. Lower waitReplicas in REDIS_URL to trade safety for availability.",
  });
}

/** The node currently serving the key's slot as primary, from the client's slot table. */
function primaryFor(cluster: Cluster, key: string): Redis | undefined {
  const owner = cluster.slots[keySlot(key)]?.[0];
  if (!owner) return undefined;
  return cluster.nodes("master").find((n) => `${n.options.host}:${n.options.port}` === owner);
}

/** Redis Cluster's key slot: CRC16 (XMODEM) of the hash tag, or of the whole key without one. */
export function keySlot(key: string): number {
  const open = key.indexOf("{");
  let tagged = key;
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) tagged = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(tagged, "utf8")) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16_384;
}
