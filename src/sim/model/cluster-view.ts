// What one server of a many-cluster platform sees of the shared world: a Flink cluster its own
// jobs, a Connect cluster its own connectors, a catalog its own tables. Everything else (the
// clock, writers, fixes) stays shared, so a change made through one server shows everywhere.

import type { World } from "./world.js";

export interface ClusterScope {
  /** The named Flink cluster, or undefined for the default one. */
  flink?: string | undefined;
  connect?: string | undefined;
  catalog?: string | undefined;
}

export function worldView(world: World, scope: ClusterScope): World {
  const s = world.scenario;
  const jobCluster = new Map((s.flink?.jobs ?? []).map((j) => [j.id, j.cluster]));
  const connectorCluster = new Map((s.connect?.connectors ?? []).map((c) => [c.name, c.cluster]));
  const tableCatalog = new Map(s.catalog.tables.map((t) => [t.name, t.catalog]));
  const filtered = <V>(
    map: Map<string, V>,
    owner: Map<string, string | undefined>,
    wanted: string | undefined,
  ) => new Map([...map].filter(([key]) => owner.get(key) === wanted));
  return new Proxy(world, {
    get(target, prop, receiver) {
      if (prop === "jobs" && "flink" in scope) return filtered(target.jobs, jobCluster, scope.flink);
      if (prop === "connectors" && "connect" in scope)
        return filtered(target.connectors, connectorCluster, scope.connect);
      if (prop === "tables" && "catalog" in scope)
        return filtered(target.tables, tableCatalog, scope.catalog);
      if (prop === "table" && "catalog" in scope)
        return (name: string) => (tableCatalog.get(name) === scope.catalog ? target.table(name) : undefined);
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The named clusters and catalogs a scenario declares, in the order they first appear. */
export function namedClusters(world: World): { flink: string[]; connect: string[]; catalogs: string[] } {
  const s = world.scenario;
  const distinct = (values: (string | undefined)[]) => [
    ...new Set(values.filter((v): v is string => v !== undefined)),
  ];
  return {
    flink: distinct((s.flink?.jobs ?? []).map((j) => j.cluster)),
    connect: distinct((s.connect?.connectors ?? []).map((c) => c.cluster)),
    catalogs: distinct(s.catalog.tables.map((t) => t.catalog)),
  };
}
