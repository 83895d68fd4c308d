// Builds the evidence ports from the loaded configuration: only the sources that are configured.
// With several named sources of a kind, the port reads all of them (sources/registry.ts); each
// source has its own auth headers and, for mutual TLS or a private CA, its own connection pool.

import type { Dispatcher } from "undici";
import type { Config } from "../../config.js";
import type {
  CatalogAuthSpec,
  CatalogSourceSpec,
  FlinkSourceProvider,
  HttpAuth,
  HttpSourceSpec,
  TlsMaterial,
} from "../../core/sources/model.js";
import type { ConnectPort, EvidencePorts, FlinkPort } from "../../services/ports.js";
import { currentSecret } from "../../util/secret-file.js";
import { createCatalogClient } from "./catalog/client.js";
import { createConnectClient } from "./connect/client.js";
import { createFlinkClient } from "./flink/client.js";
import type { SourceHeaders } from "./http.js";
import { createPrometheusClient } from "./prometheus-client.js";
import type { SourceWatch } from "./source-watch.js";
import {
  createCatalogDirectory,
  createCompositeConnect,
  createCompositeFlink,
  createCompositePrometheus,
} from "./sources/registry.js";
import { Agent } from "./undici-lean.js";

type SourceKind = "catalog" | "flink" | "connect" | "prometheus";

export interface EvidencePortOverrides {
  dispatcher?: Dispatcher;
  /** A dispatcher for one source only (the sweep's rate-limited Flink and Connect). */
  dispatchers?: Partial<Record<SourceKind, Dispatcher>>;
  timeoutMs?: number;
  maxBytes?: number;
  /** Clock for OAuth token expiry (wall time by default). */
  now?: () => number;
  /** Flink sources found at run time (the Flink Kubernetes Operator's deployments). */
  flinkProviders?: readonly FlinkSourceProvider[];
  /** Told how many Flink clients and TLS pools are kept after each Flink listing. */
  onFlinkClients?: (kept: { clients: number; tlsPools: number }) => void;
  /** Watches every request of every source (metrics, logs, readiness detail). */
  watch?: SourceWatch;
}

/** Without a kubernetes section: the named Flink sources, at most this many at once. */
const DEFAULT_CONCURRENT_JOBMANAGERS = 8;

export function createEvidencePorts(config: Config, overrides: EvidencePortOverrides = {}): EvidencePorts {
  const timeoutMs = overrides.timeoutMs ?? config.sourceTimeoutMs;
  const { tlsAgents, dispatcherFor } = sourceDispatchers(overrides);
  /** How every source is called: its pool, deadline, size cap and watch. */
  const reach = (kind: SourceKind, spec: { name: string; url: string; tls?: TlsMaterial }) => ({
    url: spec.url,
    dispatcher: dispatcherFor(kind, spec.name, spec.tls),
    timeoutMs,
    maxBytes: overrides.maxBytes,
    ...(overrides.watch ? { observe: overrides.watch.observer(kind, spec.name) } : {}),
  });
  const common = (kind: SourceKind, spec: HttpSourceSpec) => ({
    ...reach(kind, spec),
    ...(spec.auth.kind !== "none" ? { headers: authHeaders(spec.auth) } : {}),
  });

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
    const only = sources.catalogs[0];
    if (sources.catalogs.length === 1 && only?.origin === "env") {
      ports.catalog = catalogPort(only);
    } else {
      const { directory, routed } = createCatalogDirectory(sources.catalogs, catalogPort);
      ports.catalog = routed;
      ports.catalogs = directory;
    }
  }

  const flinkClients = new Map<string, FlinkPort>();
  const clientKey = (spec: HttpSourceSpec) => `${spec.name}\u0000${spec.url}`;
  const flinkPort = (spec: HttpSourceSpec) => {
    // Discovered sources are rebuilt on every listing: keep one client per name and URL.
    const key = clientKey(spec);
    let port = flinkClients.get(key);
    if (!port) {
      port = createFlinkClient(common("flink", spec));
      flinkClients.set(key, port);
    }
    return port;
  };
  /** Clients and TLS pools of sources no longer listed go (deployments come and go for good). */
  const retainFlink = (live: readonly HttpSourceSpec[]) => {
    const keys = new Set(live.map(clientKey));
    for (const key of flinkClients.keys()) if (!keys.has(key)) flinkClients.delete(key);
    const names = new Set(live.map((s) => `flink/${s.name}`));
    for (const [key, agent] of tlsAgents) {
      if (!key.startsWith("flink/") || names.has(key)) continue;
      tlsAgents.delete(key);
      void agent.close().catch(() => {});
    }
  };
  const providers = overrides.flinkProviders ?? [];
  const single = sources.flink.length === 1 && sources.flink[0]?.origin === "env" && providers.length === 0;
  if (single) ports.flink = flinkPort(sources.flink[0] as HttpSourceSpec);
  else if (sources.flink.length > 0 || providers.length > 0)
    ports.flink = createCompositeFlink(sources.flink, providers, flinkPort, {
      concurrency: config.bot.kubernetes?.maxConcurrentJobManagers ?? DEFAULT_CONCURRENT_JOBMANAGERS,
      retain: (live) => {
        retainFlink(live);
        overrides.onFlinkClients?.({ clients: flinkClients.size, tlsPools: tlsAgents.size });
      },
    });

  const connects = sources.connect.map((spec) => ({
    name: spec.name,
    port: createConnectClient(common("connect", spec)) as ConnectPort,
  }));
  if (connects.length === 1 && sources.connect[0]?.origin === "env") ports.connect = connects[0]?.port;
  else if (connects.length > 0) ports.connect = createCompositeConnect(connects, true);

  // Several Prometheus servers: every series from each (the labels tell tables and jobs apart).
  const servers = sources.prometheus.map((spec) => ({
    name: spec.name,
    port: createPrometheusClient(common("prometheus", spec)),
  }));
  if (servers.length === 1) ports.prometheus = servers[0]?.port;
  else if (servers.length > 1) ports.prometheus = createCompositePrometheus(servers);
  return ports;
}

/** The source's own TLS pool (kept per kind and name), else the kind's dispatcher, else the shared one. */
function sourceDispatchers(overrides: EvidencePortOverrides) {
  const tlsAgents = new Map<string, Agent>();
  const dispatcherFor = (kind: SourceKind, name: string, tls: TlsMaterial | undefined) => {
    if (tls && (tls.cert || tls.ca)) {
      const key = `${kind}/${name}`;
      let agent = tlsAgents.get(key);
      if (!agent) {
        agent = new Agent({
          keepAliveTimeout: 10_000,
          connect: { cert: tls.cert, key: tls.key, ca: tls.ca },
        });
        tlsAgents.set(key, agent);
      }
      return agent;
    }
    return overrides.dispatchers?.[kind] ?? overrides.dispatcher;
  };
  return { tlsAgents, dispatcherFor };
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

/** The default catalog's auth (the single-URL variables' one, or the first named default). */
export function catalogAuth(config: Config): CatalogAuthSpec {
  const fallback = config.sources.catalogs.find((c) => c.isDefault) ?? config.sources.catalogs[0];
  return fallback?.auth ?? { kind: "none" };
}
