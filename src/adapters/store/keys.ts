// Redis key layout. Every key shares one hash tag so the Lua scripts touch a single slot on
// Redis Cluster; tests pass their own namespace so runs never see each other's data.

export const DEFAULT_NAMESPACE = "iceberg-bot";

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

export function createKeys(namespace: string = DEFAULT_NAMESPACE) {
  const p = `{${namespace}}`;
  return {
    openByTable: (table: string) => `${p}:open:${table}`,
    incident: (id: string) => `${p}:incident:${id}`,
    timeline: (id: string) => `${p}:timeline:${id}`,
    reports: (id: string) => `${p}:reports:${id}`,
    sequence: () => `${p}:seq:incident`,
    openSet: () => `${p}:open-incidents`,
    recentTables: () => `${p}:recent-tables`,
    tableAudit: (table: string) => `${p}:audit:${table}`,
    seen: (scope: string, key: string) => `${p}:seen:${scope}:${key}`,
    /** Jobs promised by alert intake and not yet confirmed queued (a sorted set; the key keeps its first name). */
    intakePromises: () => `${p}:intake-outbox`,
    /** Slash commands recorded by a receiver and not yet queued by a worker (a stream). */
    inbox: () => `${p}:command-inbox`,
    /** Fingerprints of an incident's alerts still firing. */
    firing: (id: string) => `${p}:firing:${id}`,
    /** Closed incidents by when they closed: what retention removes (retention.ts). */
    closed: () => `${p}:closed-incidents`,
    /** A table's closed incidents by id, and their ids by when they closed (history-store.ts). */
    history: (table: string) => `${p}:history:${table}`,
    historyIndex: (table: string) => `${p}:history-index:${table}`,
    /** The tables with history, and a counter bumped on every save (history-store.ts). */
    historyTables: () => `${p}:history-tables`,
    historyVersion: () => `${p}:history-version`,
    /** The incident's playbook walk (remediation-store.ts). */
    walk: (id: string) => `${p}:walk:${id}`,
    /** The incident's messages owed to Slack (slack/outbox/outbox.ts). */
    slackQueue: (id: string) => `${p}:outbox:q:${id}`,
    /** Slack ts of the incident's posted messages, one field per message (`<id>|<name>`). */
    slackTs: () => `${p}:outbox:ts`,
    /** What Slack's answers said about the token and the channels (adapters/http/health.ts). */
    slackHealth: () => `${p}:slack-health`,
    /** How late the incident's messages reached Slack at worst, in ms (adapters/http/health.ts). */
    slackDelay: (id: string) => `${p}:slack-delay:${id}`,
    /** What people wrote in the incident's thread (people-store.ts). */
    remarks: (id: string) => `${p}:remarks:${id}`,
    /** Who said "I'm on it" for the incident, and when (people-store.ts). */
    claim: (id: string) => `${p}:claim:${id}`,
  };
}

export type Keys = ReturnType<typeof createKeys>;
