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
  /** The intake promises (a sorted set; the key keeps its first name). */
  intakePromises(): string;
  /** Slash commands recorded by a receiver and not yet queued by a worker (a stream). */
  inbox(): string;
  /** Fingerprints of an incident's alerts still firing. */
  firing(id: string): string;
  /** Closed incidents by when they closed: what retention removes (retention.ts). */
  closed(): string;
  /** The incident's playbook walk (walk-store.ts). */
  walk(id: string): string;
  /** The incident's messages owed to Slack (slack/outbox/outbox.ts). */
  slackQueue(id: string): string;
  /** Slack ts of the incident's posted messages, one field per message (`<id>|<name>`). */
  slackTs(): string;
  /** How late the incident's messages reached Slack at worst, in ms (adapters/http/health.ts). */
  slackDelay(id: string): string;
  /** What Slack's answers said about the token and the channels (adapters/http/health.ts). */
  slackHealth(): string;
  /** What people wrote in the incident's thread (people-store.ts). */
  remarks(id: string): string;
  /** Who said "I'm on it" for the incident, and when (people-store.ts). */
  claim(id: string): string;
}

/** Every key that belongs to one incident alone: removed together when its retention ends. */
export function incidentKeys(keys: Keys, id: string): string[] {
  return [
    keys.incident(id),
    keys.timeline(id),
    keys.reports(id),
    keys.firing(id),
    keys.walk(id),
    keys.slackQueue(id),
    keys.slackDelay(id),
    keys.remarks(id),
    keys.claim(id),
  ];
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
    intakePromises: () => `${p}:intake-outbox`,
    inbox: () => `${p}:command-inbox`,
    firing: (id) => `${p}:firing:${id}`,
    closed: () => `${p}:closed-incidents`,
    walk: (id) => `${p}:walk:${id}`,
    slackQueue: (id) => `${p}:outbox:q:${id}`,
    slackTs: () => `${p}:outbox:ts`,
    slackHealth: () => `${p}:slack-health`,
    slackDelay: (id) => `${p}:slack-delay:${id}`,
    remarks: (id) => `${p}:remarks:${id}`,
    claim: (id) => `${p}:claim:${id}`,
  };
}
