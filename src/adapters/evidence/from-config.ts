// Builds the evidence ports from the loaded configuration: only the sources that are configured.
// With several named sources of a kind, the port reads all of them (sources/registry.ts); each
// source has its own auth headers and, for mutual TLS or a private CA, its own connection pool.

import type { Dispatcher } from "undici";
import type { Config } from "../../config.js";
import type { SourceName } from "../../core/ids.js";
import type {
  CatalogSourceSpec,
  FlinkSourceProvider,
  HttpAuth,
  HttpSourceSpec,
} from "../../core/sources/model.js";
import type { ConnectPort, EvidencePorts, FlinkPort } from "../../services/ports.js";
import { currentSecret } from "../../util/secret-file.js";
import { createCatalogClient } from "./catalog/client.js";
import { createConnectClient } from "./connect/client.js";
import { createFlinkClient } from "./flink/client.js";
import { type SourceHeaders, tlsAgent } from "./http.js";
import { createPrometheusClient } from "./prometheus-client.js";
import type { SourceWatch } from "./source-watch.js";
import {
  createCatalogDirectory,
  createCompositeConnect,
  createCompositeFlink,
  createCompositePrometheus,
} from "./sources/registry.js";
import type { Agent } from "./undici-lean.js";

type SourceSpec = Pick<HttpSourceSpec, "name" | "url" | "tls">;

export interface EvidencePortOverrides {
  dispatcher?: Dispatcher;
  /** A dispatcher for one source only (the sweep's rate-limited Flink and Connect). */
  dispatchers?: Partial<Record<SourceName, Dispatcher>>;
  timeoutMs?: number;
  maxBytes?: number;
  /** Clock for OAuth token expiry (wall time by default). */
  now?: () => number;
  /** Flink sources found at run time (the Flink Kubernetes Operator's deployments). */
  flinkProviders?: readonly FlinkSourceProvider[];
  /** Told how many Flink clients, and TLS pools among them, are kept after each Flink listing. */
  onFlinkClients?: (kept: { clients: number; tlsPools: number }) => void;
  /** Watches every request of every source (metrics, logs, readiness detail). */
  watch?: SourceWatch;
}

/** Without a kubernetes section: the named Flink sources, at most this many at once. */
const DEFAULT_CONCURRENT_JOBMANAGERS = 8;

export function createEvidencePorts(config: Config, overrides: EvidencePortOverrides = {}): EvidencePorts {
  const timeoutMs = overrides.timeoutMs ?? config.sourceTimeoutMs;
  /** How every source is called: its pool, deadline, size cap and watch. */
  const reach = (kind: SourceName, spec: SourceSpec, tlsPool = tlsAgent(spec.tls)) => ({
    url: spec.url,
    dispatcher: tlsPool ?? overrides.dispatchers?.[kind] ?? overrides.dispatcher,
    timeoutMs,
    maxBytes: overrides.maxBytes,
    ...(overrides.watch ? { observe: overrides.watch.observer(kind, spec.name) } : {}),
  });
  const common = (kind: SourceName, spec: HttpSourceSpec, tlsPool?: Agent) => ({
    ...reach(kind, spec, tlsPool),
    ...(spec.auth.kind !== "none" ? { headers: authHeaders(spec.auth) } : {}),
  });
  /** A lone source from the single-URL variables is the port itself, untagged by name. */
  const lone = (specs: readonly { origin: string }[]) => specs.length === 1 && specs[0]?.origin === "env";

  const ports: EvidencePorts = {};
  const { sources } = config;

  if (sources.catalogs.length > 0) {
    const catalogPort = (spec: CatalogSourceSpec) =>
      createCatalogClient({
        ...reach("catalog", spec),
        warehouse: spec.warehouse,
        prefix: spec.prefix,
        auth: spec.auth,
        now: overrides.now,
        aws: config.aws,
      });
    if (lone(sources.catalogs)) ports.catalog = catalogPort(sources.catalogs[0] as CatalogSourceSpec);
    else {
      const { directory, routed } = createCatalogDirectory(sources.catalogs, catalogPort);
      ports.catalog = routed;
      ports.catalogs = directory;
    }
  }

  const flink = flinkClients(
    (spec, tlsPool) => createFlinkClient(common("flink", spec, tlsPool)),
    overrides.onFlinkClients,
  );
  const providers = overrides.flinkProviders ?? [];
  if (lone(sources.flink) && providers.length === 0)
    ports.flink = flink.portFor(sources.flink[0] as HttpSourceSpec);
  else if (sources.flink.length > 0 || providers.length > 0)
    ports.flink = createCompositeFlink(sources.flink, providers, flink.portFor, {
      concurrency: config.bot.kubernetes?.maxConcurrentJobManagers ?? DEFAULT_CONCURRENT_JOBMANAGERS,
      retain: flink.retain,
    });

  const connects = sources.connect.map((spec) => ({
    name: spec.name,
    port: createConnectClient(common("connect", spec)) as ConnectPort,
  }));
  if (lone(sources.connect)) ports.connect = connects[0]?.port;
  else if (connects.length > 0) ports.connect = createCompositeConnect(connects);

  // Several Prometheus servers: every series from each (the labels tell tables and jobs apart).
  const servers = sources.prometheus.map((spec) => ({
    name: spec.name,
    port: createPrometheusClient(common("prometheus", spec)),
  }));
  if (servers.length === 1) ports.prometheus = servers[0]?.port;
  else if (servers.length > 1) ports.prometheus = createCompositePrometheus(servers);
  return ports;
}

/**
 * Discovered sources are rebuilt on every listing: one Flink client (and TLS pool) per name and
 * URL, let go once the source is no longer listed (deployments come and go for good).
 */
function flinkClients(
  build: (spec: HttpSourceSpec, tlsPool: Agent | undefined) => FlinkPort,
  onKept: EvidencePortOverrides["onFlinkClients"],
) {
  const clients = new Map<string, { port: FlinkPort; tlsPool?: Agent }>();
  const keyOf = (spec: HttpSourceSpec) => `${spec.name}\u0000${spec.url}`;
  return {
    portFor(spec: HttpSourceSpec): FlinkPort {
      let client = clients.get(keyOf(spec));
      if (!client) {
        const tlsPool = tlsAgent(spec.tls);
        client = { port: build(spec, tlsPool), tlsPool };
        clients.set(keyOf(spec), client);
      }
      return client.port;
    },
    retain(live: readonly HttpSourceSpec[]): void {
      const keys = new Set(live.map(keyOf));
      for (const [key, { tlsPool }] of clients) {
        if (keys.has(key)) continue;
        clients.delete(key);
        void tlsPool?.close().catch(() => {});
      }
      const tlsPools = [...clients.values()].filter((c) => c.tlsPool).length;
      onKept?.({ clients: clients.size, tlsPools });
    },
  };
}

/** The source's auth header; asked for on each request when its secret is a file that may be rotated. */
function authHeaders(auth: HttpAuth): SourceHeaders {
  const header = (): Record<string, string> => {
    if (auth.kind === "basic") {
      const password = currentSecret(auth.password, auth.passwordFile);
      return { authorization: `Basic ${Buffer.from(`${auth.username}:${password}`).toString("base64")}` };
    }
    if (auth.kind === "bearer")
      return { authorization: `Bearer ${currentSecret(auth.token, auth.tokenFile)}` };
    return {};
  };
  const followsFile =
    (auth.kind === "basic" && auth.passwordFile !== undefined) ||
    (auth.kind === "bearer" && auth.tokenFile !== undefined);
  return followsFile ? header : header();
}
