// The words people read for our ids: one table for every finding, step, evidence source and writer
// kind. Ids stay the contract (reports, playbooks, commands); every surface names them from here,
// so the thread, the card, the report and the postmortem say the same thing.

import type { FindingId, SourceName, StepId, WriterKind } from "../ids.js";

export const FINDING_WORDS: Record<FindingId, string> = {
  "commit-not-attempted": "commits not attempted (checkpoints failing)",
  "commit-failing": "commits failing",
  "commit-conflict": "commit conflict",
  "commit-state-unknown": "commit state unknown",
  "validation-conflict": "row-level validation conflict",
  "connect-coordinator-stopped": "Kafka Connect coordinator stopped",
  "commit-error": "commit fails with an exception",
  "writer-never-committed": "writer never committed",
  "writer-idle": "writer quiet as expected",
  healthy: "healthy",
  "rewrite-in-window": "compaction in the commit window",
  "row-level-in-window": "row-level changes in the commit window",
  "multiple-flink-jobs": "several Flink jobs commit to the table",
  "multiple-writers": "writers of other engines commit to the table",
  "committers-inside-job": "several committers inside one job",
  "unattributed-commits": "commits with no writer identity",
  "competing-appends": "competing appends",
  "metadata-only-change": "metadata-only change",
  "schema-churn": "frequent schema changes",
  "branch-commits": "writer commits to a branch",
  "commit-duration-growing": "commit duration growing",
  "many-files-per-commit": "many files per commit",
  "frequent-commits": "commits more often than once a minute",
  "default-retry-budget": "commit retries at their defaults",
  "writer-last-snapshot-at-risk": "expiry can remove the writer's last snapshot",
};

export const STEP_WORDS: Record<StepId, string> = {
  "check-checkpoints": "fix checkpoints first",
  "verify-unknown-commit": "check whether the commit landed",
  "remove-duplicate-commit": "remove the duplicate commit",
  "confirm-recommit": "confirm the lost commit's data landed once",
  "raise-commit-retries": "raise commit retries",
  "commit-less-often": "commit less often",
  "move-compaction-off-hot-partitions": "move compaction off hot partitions",
  "keep-writer-last-snapshot": "keep the writer's last snapshot",
  "one-committer-per-table": "one committer per table",
  "restart-connect-coordinator": "restart the Connect coordinator",
  "review-isolation-level": "review the isolation level",
  "apply-schema-first": "apply schema changes first",
  "idempotent-restart": "restart idempotently",
  "renew-catalog-credential": "renew the catalog credential",
  "check-catalog-service": "check the catalog service",
  "raise-writer-memory": "raise the writer's memory",
  "fix-writer-error": "fix the writer's error",
};

export const SOURCE_WORDS: Record<SourceName, string> = {
  catalog: "Iceberg REST catalog",
  flink: "Flink REST API",
  connect: "Kafka Connect REST API",
  prometheus: "Prometheus",
};

export const WRITER_KIND_WORDS: Record<WriterKind, string> = {
  flink: "Flink job",
  connect: "connector",
};

/** Where the bot's own credential for a source kind is set: what to fix when the source refuses it. */
export const CREDENTIAL_SETTING_WORDS: Record<SourceName, string> = {
  catalog:
    "ICEBERG_CATALOG_TOKEN (or ICEBERG_CATALOG_CREDENTIAL), or the catalog's auth in BOT_CONFIG sources.catalogs",
  flink: "the Flink source's auth in BOT_CONFIG sources (tokenEnv or passwordEnv)",
  connect: "the Kafka Connect source's auth in BOT_CONFIG sources (tokenEnv or passwordEnv)",
  prometheus: "the Prometheus source's auth in BOT_CONFIG sources (tokenEnv or passwordEnv)",
};

export function findingWords(id: FindingId): string {
  return FINDING_WORDS[id];
}

/** "commit conflict (competing appends)": a triage finding with its root cause, when known. */
export function causeWords(triage: FindingId, rootCause?: FindingId): string {
  return `${findingWords(triage)}${rootCause ? ` (${findingWords(rootCause)})` : ""}`;
}

export function stepWords(id: StepId): string {
  return STEP_WORDS[id];
}

/** "Flink REST API", or "Flink REST API (east)" for one named source of a kind. */
export function sourceWords(kind: SourceName, name?: string): string {
  return name === undefined ? SOURCE_WORDS[kind] : `${SOURCE_WORDS[kind]} (${name})`;
}

/**
 * A source and what it said: "Flink REST API: connection refused". A reason that already names the
 * source ("Iceberg REST catalog answered HTTP 503 …") is said alone, so the name is not said twice.
 */
export function sourceSaid(source: string, reason: string): string {
  return reason.toLowerCase().startsWith(source.toLowerCase()) ? reason : `${source}: ${reason}`;
}

/** "Flink job orders-ingest (0b1c…)", "connector events-sink": a writer named as people read it. */
export function writerWords(kind: WriterKind, name: string): string {
  return `${WRITER_KIND_WORDS[kind]} ${name}`;
}

/** Steps whose change the playbooks define in full: the summary the report leads with. */
export const PLAYBOOK_STEP_SUMMARY: Partial<Record<StepId, string>> = {
  "restart-connect-coordinator": "Restart the connector's failed tasks so the commit coordinator runs again",
  "review-isolation-level":
    "Set the row-level commands' isolation level to snapshot, only after confirming they do not need serializable",
  "raise-commit-retries": "Give the writer a larger commit retry budget",
};
