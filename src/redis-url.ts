// REDIS_URL in its three forms, parsed without I/O (config.ts validates with it; the Redis
// adapter connects from what it returns):
//   redis://[user:password@]host:6379[/db]              one server (rediss:// for TLS)
//   redis+sentinel://[user:password@]h1:26379,h2:26379/mymaster[/db][?options]
//   redis+cluster://[user:password@]h1:6379,h2:6379[?options]
// rediss+sentinel:// and rediss+cluster:// speak TLS to the data nodes. Options:
//   sentinelUsername, sentinelPassword  credentials of the Sentinels themselves
//   sentinelTls=true|false              TLS to the Sentinels (default: as the data nodes)
//   tlsServername                       the name certificates are checked against
//   waitReplicas=N, waitTimeoutMs=M     an alert is acknowledged only once N replicas have it
// User and password belong to the data nodes. Nothing here ever echoes a password in an error.

interface HostPort {
  host: string;
  port: number;
}

interface Durability {
  /** Replicas that must hold an alert's writes before it is acknowledged (WAIT); 0 = do not wait. */
  waitReplicas: number;
  waitTimeoutMs: number;
}

interface Common extends Durability {
  username?: string;
  password?: string;
  tls: boolean;
  tlsServername?: string;
}

interface StandaloneTopology extends Common {
  kind: "standalone";
  url: string;
}

interface SentinelTopology extends Common {
  kind: "sentinel";
  sentinels: HostPort[];
  /** The monitored primary's name (Sentinel's master name). */
  name: string;
  db: number;
  sentinelUsername?: string;
  sentinelPassword?: string;
  sentinelTls: boolean;
}

interface ClusterTopology extends Common {
  kind: "cluster";
  nodes: HostPort[];
}

export type RedisTopology = StandaloneTopology | SentinelTopology | ClusterTopology;

export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

const MULTI_HOST = /^(rediss?)\+(sentinel|cluster):\/\/(?:([^@/]*)@)?([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/;
const KNOWN_OPTIONS = new Set([
  "sentinelUsername",
  "sentinelPassword",
  "sentinelTls",
  "tlsServername",
  "waitReplicas",
  "waitTimeoutMs",
]);

/** Parses REDIS_URL; throws an Error whose message names the problem (never the password). */
export function parseRedisUrl(raw: string): RedisTopology {
  const text = raw.trim();
  const multi = MULTI_HOST.exec(text);
  if (multi) return parseMultiHost(multi);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      "not a URL: use redis://host:6379, redis+sentinel://host:26379,host2:26379/mymaster or redis+cluster://host:6379,host2:6379",
    );
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new Error(
      `scheme ${url.protocol.replace(/:$/, "")} is not one of redis, rediss, redis+sentinel, rediss+sentinel, redis+cluster, rediss+cluster`,
    );
  }
  if (!url.hostname) throw new Error("has no host");
  const options = readOptions(url.searchParams, new Set(["waitReplicas", "waitTimeoutMs"]), false);
  // ioredis reads the URL itself; our own options are taken out of it.
  for (const key of KNOWN_OPTIONS) url.searchParams.delete(key);
  return {
    kind: "standalone",
    url: url.toString(),
    username: decode(url.username),
    password: decode(url.password),
    tls: url.protocol === "rediss:",
    ...durability(options, 0),
  };
}

function parseMultiHost(match: RegExpExecArray): SentinelTopology | ClusterTopology {
  const [, scheme, kind, auth, hostList, path, query] = match as unknown as [
    string,
    string,
    "sentinel" | "cluster",
    string | undefined,
    string,
    string | undefined,
    string | undefined,
  ];
  const tls = scheme === "rediss";
  const defaultPort = kind === "sentinel" ? 26379 : 6379;
  const hosts = hostList.split(",").map((entry) => parseHostPort(entry.trim(), defaultPort));
  const { username, password } = parseAuth(auth);
  const params = new URLSearchParams(query ?? "");
  const options = readOptions(params, KNOWN_OPTIONS, true);
  const tlsServername = options.get("tlsServername");
  const common = {
    username,
    password,
    tls,
    ...(tlsServername ? { tlsServername } : {}),
  };
  const segments = (path ?? "").split("/").filter((s) => s !== "");
  if (kind === "cluster") {
    if (segments.length > 0) throw new Error("a Cluster URL has no path: Redis Cluster has only database 0");
    for (const key of ["sentinelUsername", "sentinelPassword", "sentinelTls"]) {
      if (options.has(key)) throw new Error(`${key} applies to redis+sentinel:// URLs only`);
    }
    return { kind: "cluster", nodes: hosts, ...common, ...durability(options, 0) };
  }
  const [name, dbText, ...rest] = segments;
  if (!name) throw new Error("names no primary: add its Sentinel name as the path, e.g. /mymaster");
  if (rest.length > 0) throw new Error("path must be /<primary name>[/<db>]");
  const db = dbText === undefined ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0 || db > 15) throw new Error(`database ${dbText} is not 0-15`);
  const sentinelTls = options.has("sentinelTls") ? bool(options.get("sentinelTls"), "sentinelTls") : tls;
  return {
    kind: "sentinel",
    sentinels: hosts,
    name: decodeURIComponent(name),
    db,
    ...common,
    ...(options.has("sentinelUsername") ? { sentinelUsername: options.get("sentinelUsername") } : {}),
    ...(options.has("sentinelPassword") ? { sentinelPassword: options.get("sentinelPassword") } : {}),
    sentinelTls,
    // A Sentinel primary has a replica to fail over to: by default an alert is acknowledged only
    // once that replica holds it, so a failover right after the answer cannot lose it.
    ...durability(options, 1),
  };
}

/** Our options from the query; `strict` refuses unknown ones (standalone URLs may carry ioredis's). */
function readOptions(
  params: URLSearchParams,
  allowed: ReadonlySet<string>,
  strict: boolean,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of params) {
    if (allowed.has(key)) out.set(key, value);
    else if (KNOWN_OPTIONS.has(key)) throw new Error(`option ${key} does not apply to this form of URL`);
    else if (strict) throw new Error(`unknown option ${key} (known: ${[...KNOWN_OPTIONS].join(", ")})`);
  }
  return out;
}

function durability(options: Map<string, string>, defaultReplicas: number): Durability {
  const waitReplicas = integer(options.get("waitReplicas"), defaultReplicas, "waitReplicas", 0, 16);
  const waitTimeoutMs = integer(options.get("waitTimeoutMs"), 1000, "waitTimeoutMs", 10, 60_000);
  return { waitReplicas, waitTimeoutMs };
}

function integer(text: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`option ${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function bool(text: string | undefined, name: string): boolean {
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new Error(`option ${name} must be true or false`);
}

function parseAuth(auth: string | undefined): { username?: string; password?: string } {
  if (auth === undefined || auth === "") return {};
  const at = auth.indexOf(":");
  const user = at < 0 ? auth : auth.slice(0, at);
  const pass = at < 0 ? "" : auth.slice(at + 1);
  return { username: decode(user), password: decode(pass) };
}

function decode(text: string): string | undefined {
  if (text === "") return undefined;
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error("user or password is not URL-encoded correctly");
  }
}

function parseHostPort(entry: string, defaultPort: number): HostPort {
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(entry);
  const plain = /^([A-Za-z0-9._-]+)(?::(\d+))?$/.exec(entry);
  const found = bracketed ?? plain;
  if (!found) throw new Error(`host "${entry}" is not host or host:port`);
  const port = found[2] === undefined ? defaultPort : Number(found[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error(`port of "${entry}" is not 1-65535`);
  return { host: found[1] as string, port };
}

/** The topology in words for logs and /readyz: hosts and names, never credentials. */
export function describeTopology(topology: RedisTopology): string {
  const list = (hosts: HostPort[]) => hosts.map((h) => `${h.host}:${h.port}`).join(",");
  switch (topology.kind) {
    case "standalone": {
      const url = new URL(topology.url);
      return `standalone ${url.hostname}:${url.port || 6379}`;
    }
    case "sentinel":
      return `sentinel ${topology.name} via ${list(topology.sentinels)}`;
    case "cluster":
      return `cluster seeds ${list(topology.nodes)}`;
  }
}
