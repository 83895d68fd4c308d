// Redis key layout. Every key shares one hash tag so the Lua scripts touch a single slot on
// Redis Cluster; tests pass their own namespace so runs never see each other's data.

export const DEFAULT_NAMESPACE = "iceberg-bot";

export interface Keys {
  openByTable(table: string): string;
  incident(id: string): string;
  timeline(id: string): string;
  reports(id: string): string;
  sequence(): string;
  openSet(): string;
  recentTables(): string;
  tableAudit(table: string): string;
  seen(scope: string, key: string): string;
  /** Jobs promised by alert intake and not yet confirmed queued. */
  outbox(): string;
  /** Slash commands recorded by a receiver and not yet queued by a worker (a stream). */
  inbox(): string;
  /** Fingerprints of an incident's alerts still firing. */
  firing(id: string): string;
}

export function createKeys(namespace: string = DEFAULT_NAMESPACE): Keys {
  const p = `{${namespace}}`;
  return {
    openByTable: (table) => `${p}:open:${table}`,
    incident: (id) => `${p}:incident:${id}`,
    timeline: (id) => `${p}:timeline:${id}`,
    reports: (id) => `${p}:reports:${id}`,
    sequence: () => `${p}:seq:incident`,
    openSet: () => `${p}:open-incidents`,
    recentTables: () => `${p}:recent-tables`,
    tableAudit: (table) => `${p}:audit:${table}`,
    seen: (scope, key) => `${p}:seen:${scope}:${key}`,
    outbox: () => `${p}:intake-outbox`,
    inbox: () => `${p}:command-inbox`,
    firing: (id) => `${p}:firing:${id}`,
  };
}
