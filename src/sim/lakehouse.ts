// Starts the simulated lakehouse: four loopback servers (Iceberg REST catalog, Flink, Kafka
// Connect, Prometheus) over one shared, clock-driven world built from a scenario.

import { stringify } from "yaml";
import { createSimClock, type SimClock } from "./clock.js";
import { type FaultInjector, type FaultSpec, SimFaultInjector, type SimService } from "./faults.js";
import { namedClusters, worldView } from "./model/cluster-view.js";
import { type LakehouseSnapshot, type SnapshotAuthor, World } from "./model/world.js";
import type { Scenario } from "./scenario/schema.js";
import { loadScenario } from "./scenarios.js";
import { type CatalogAuthOptions, catalogErrorBody, createCatalogRouter } from "./servers/catalog.js";
import { connectErrorBody, createConnectRouter } from "./servers/connect.js";
import { createFlinkRouter, flinkErrorBody } from "./servers/flink/server.js";
import {
  type AdminHooks,
  type RecordedRequest,
  type ServiceServer,
  type SimHandler,
  startServiceServer,
} from "./servers/http.js";
import { createPrometheusRouter, prometheusErrorBody } from "./servers/prometheus.js";

export type { FaultKind } from "./faults.js";

export { generateTableMetadataJson } from "./table-metadata.js";

export interface LakehouseOptions {
  /** A parsed scenario, or a built-in scenario name or a path to a scenario file. */
  scenario: Scenario | string;
  clock?: SimClock;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 = a free port. */
  ports?: { catalog?: number; flink?: number; connect?: number; prometheus?: number };
  /** When set, catalog requests need a Bearer token (the static one or one issued via OAuth). */
  catalogAuth?: CatalogAuthOptions;
  /** OAuth access token lifetime in seconds (default 3600). */
  tokenTtlSeconds?: number;
}

export interface Lakehouse {
  /** The default servers (jobs, connectors and tables the scenario names no cluster or catalog for). */
  urls: { catalog: string; flink: string; connect: string; prometheus: string };
  /** One server per named Flink cluster, Connect cluster and catalog the scenario declares. */
  named: { flink: Record<string, string>; connect: Record<string, string>; catalogs: Record<string, string> };
  /**
   * The bot's settings for this platform: the single-URL variables for the default servers in
   * use, and BOT_CONFIG's `sources:` for the named ones (YAML text).
   */
  env(): Record<string, string>;
  clock: SimClock;
  faults: FaultInjector;
  /** Every service request received (admin /__sim routes excluded), oldest first. */
  requests: RecordedRequest[];
  /** Moves the clock and lets recovered writers commit. */
  advance(ms: number): void;
  /** Plays a person's fix made by hand: the table's failing writers recover. Returns how many. */
  fixByHand(table: string): number;
  state(): LakehouseSnapshot;
  /** Who committed a snapshot, and whether that writer had failed and has recovered. */
  snapshotAuthor(table: string, snapshotId: string): SnapshotAuthor | undefined;
  /** Drops a table and creates it again under the same name (a new uuid), as a person might. */
  recreateTable(name: string): void;
  close(): Promise<void>;
}

const SERVICES: readonly SimService[] = ["catalog", "flink", "connect", "prometheus"];

export async function startLakehouse(options: LakehouseOptions): Promise<Lakehouse> {
  const scenario = typeof options.scenario === "string" ? loadScenario(options.scenario) : options.scenario;
  const clock = options.clock ?? createSimClock();
  const world = new World(scenario, clock.now());
  world.sync(clock.now());
  const faults = new SimFaultInjector();
  for (const fault of scenario.faults) faults.inject(fault);
  const requests: RecordedRequest[] = [];
  const host = options.host ?? "127.0.0.1";

  const advance = (ms: number): void => {
    clock.advance(ms);
    world.sync(clock.now());
  };
  const state = (): LakehouseSnapshot => {
    world.sync(clock.now());
    return world.state(clock.now());
  };
  const admin: AdminHooks = {
    injectFault: (spec: FaultSpec) => faults.inject(spec),
    clearFaults: () => faults.clear(),
    advance,
    stateJson: () => JSON.stringify(state()),
  };

  const handlers: Record<SimService, { handler: SimHandler; errorBody: (status: number) => string }> = {
    catalog: {
      handler: createCatalogRouter({
        world,
        clock,
        auth: options.catalogAuth,
        tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
      }),
      errorBody: catalogErrorBody,
    },
    flink: { handler: createFlinkRouter(world, clock), errorBody: flinkErrorBody },
    connect: { handler: createConnectRouter(world, clock), errorBody: connectErrorBody },
    prometheus: { handler: createPrometheusRouter(world, clock), errorBody: prometheusErrorBody },
  };

  const clusters = namedClusters(world);
  const many = clusters.flink.length + clusters.connect.length + clusters.catalogs.length > 0;
  if (many) {
    // The default servers then serve only what no named cluster or catalog claims.
    handlers.flink.handler = createFlinkRouter(worldView(world, { flink: undefined }), clock);
    handlers.connect.handler = createConnectRouter(worldView(world, { connect: undefined }), clock);
    handlers.catalog.handler = createCatalogRouter({
      world: worldView(world, { catalog: undefined }),
      clock,
      auth: options.catalogAuth,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    });
  }
  const extra: { kind: "flink" | "connect" | "catalogs"; name: string; server?: ServiceServer }[] = [
    ...clusters.flink.map((name) => ({ kind: "flink" as const, name })),
    ...clusters.connect.map((name) => ({ kind: "connect" as const, name })),
    ...clusters.catalogs.map((name) => ({ kind: "catalogs" as const, name })),
  ];
  const extraHandler = (kind: (typeof extra)[number]["kind"], name: string) => {
    if (kind === "flink") return createFlinkRouter(worldView(world, { flink: name }), clock);
    if (kind === "connect") return createConnectRouter(worldView(world, { connect: name }), clock);
    return createCatalogRouter({
      world: worldView(world, { catalog: name }),
      clock,
      auth: options.catalogAuth,
      tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    });
  };

  const servers: Partial<Record<SimService, ServiceServer>> = {};
  try {
    for (const entry of extra) {
      const service: SimService = entry.kind === "catalogs" ? "catalog" : entry.kind;
      entry.server = await startServiceServer({
        service,
        name: entry.name,
        host,
        port: 0,
        handler: extraHandler(entry.kind, entry.name),
        errorBody: handlers[service].errorBody,
        faults,
        requests,
        admin,
        beforeRequest: () => world.sync(clock.now()),
      });
    }
    for (const service of SERVICES) {
      servers[service] = await startServiceServer({
        service,
        host,
        port: options.ports?.[service] ?? 0,
        handler: handlers[service].handler,
        errorBody: handlers[service].errorBody,
        faults,
        requests,
        admin,
        beforeRequest: () => world.sync(clock.now()),
      });
    }
  } catch (err) {
    await Promise.all(
      [...Object.values(servers), ...extra.flatMap((e) => (e.server ? [e.server] : []))].map((s) =>
        s.close(),
      ),
    );
    throw err;
  }
  const named: Lakehouse["named"] = { flink: {}, connect: {}, catalogs: {} };
  for (const entry of extra) if (entry.server) named[entry.kind][entry.name] = entry.server.url;
  const started = servers as Record<SimService, ServiceServer>;
  let closed = false;

  return {
    urls: {
      catalog: started.catalog.url,
      flink: started.flink.url,
      connect: started.connect.url,
      prometheus: started.prometheus.url,
    },
    named,
    env: () => platformEnv(scenario, started, named, clusters),
    clock,
    faults,
    requests,
    advance,
    fixByHand: (table: string) => world.fixByHand(table, clock.now()),
    state,
    snapshotAuthor: (table: string, snapshotId: string) => world.snapshotAuthor(table, snapshotId),
    recreateTable: (name: string) => world.recreateTable(name, clock.now()),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([
        ...SERVICES.map((s) => started[s].close()),
        ...extra.flatMap((e) => (e.server ? [e.server.close()] : [])),
      ]);
    },
  };
}

function platformEnv(
  scenario: Scenario,
  started: Record<SimService, ServiceServer>,
  named: Lakehouse["named"],
  clusters: { flink: string[]; connect: string[]; catalogs: string[] },
): Record<string, string> {
  const env: Record<string, string> = {};
  const unnamedTables = scenario.catalog.tables.some((t) => t.catalog === undefined);
  if (unnamedTables || clusters.catalogs.length === 0) env.ICEBERG_CATALOG_URL = started.catalog.url;
  if (
    (scenario.flink?.jobs ?? []).some((j) => j.cluster === undefined) ||
    (scenario.flink && clusters.flink.length === 0)
  )
    env.FLINK_REST_URL = started.flink.url;
  if (
    (scenario.connect?.connectors ?? []).some((c) => c.cluster === undefined) ||
    (scenario.connect && clusters.connect.length === 0)
  )
    env.CONNECT_REST_URL = started.connect.url;
  if (scenario.prometheus) env.PROMETHEUS_URL = started.prometheus.url;
  if (clusters.flink.length + clusters.connect.length + clusters.catalogs.length === 0) return env;
  const sources = {
    flink: Object.entries(named.flink).map(([name, url]) => ({ name, url })),
    connect: Object.entries(named.connect).map(([name, url]) => ({ name, url })),
    catalogs: Object.entries(named.catalogs).map(([name, url], i) => ({
      name,
      url,
      tables: scenario.catalog.tables.filter((t) => t.catalog === name).map((t) => t.name),
      // Without a default catalog from ICEBERG_CATALOG_URL, the first named one is the default.
      ...(env.ICEBERG_CATALOG_URL === undefined && i === 0 ? { default: true } : {}),
    })),
  };
  env.BOT_CONFIG = stringify({ sources });
  return env;
}
