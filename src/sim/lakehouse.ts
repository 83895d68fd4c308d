// Starts the simulated lakehouse: four loopback servers (Iceberg REST catalog, Flink, Kafka
// Connect, Prometheus) over one shared, clock-driven world built from a scenario.

import { createSimClock, type SimClock } from "./clock.js";
import { type FaultInjector, type FaultSpec, SimFaultInjector, type SimService } from "./faults.js";
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

export type { FaultInjector, FaultKind, FaultSpec } from "./faults.js";
export type { LakehouseSnapshot, SnapshotAuthor } from "./model/world.js";
export type { RecordedRequest } from "./servers/http.js";
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
  urls: { catalog: string; flink: string; connect: string; prometheus: string };
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

  const servers: Partial<Record<SimService, ServiceServer>> = {};
  try {
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
    await Promise.all(Object.values(servers).map((s) => s.close()));
    throw err;
  }
  const started = servers as Record<SimService, ServiceServer>;
  let closed = false;

  return {
    urls: {
      catalog: started.catalog.url,
      flink: started.flink.url,
      connect: started.connect.url,
      prometheus: started.prometheus.url,
    },
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
      await Promise.all(SERVICES.map((s) => started[s].close()));
    },
  };
}
