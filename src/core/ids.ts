// Public contracts from the runbook: these ids appear in reports, playbooks, Slack and tests.

export const TRIAGE_IDS = [
  "commit-not-attempted",
  "commit-failing",
  "commit-conflict",
  "commit-state-unknown",
  "validation-conflict",
  "connect-coordinator-stopped",
  "commit-error",
  "writer-never-committed",
  "writer-idle",
  "healthy",
] as const;

export const ROOT_CAUSE_IDS = [
  "rewrite-in-window",
  "row-level-in-window",
  "multiple-flink-jobs",
  "multiple-writers",
  "committers-inside-job",
  "unattributed-commits",
  "competing-appends",
  "metadata-only-change",
  "schema-churn",
  "branch-commits",
] as const;

const SIGNAL_IDS = [
  "commit-duration-growing",
  "many-files-per-commit",
  "frequent-commits",
  "default-retry-budget",
  "writer-last-snapshot-at-risk",
] as const;

export const FINDING_IDS = [...TRIAGE_IDS, ...ROOT_CAUSE_IDS, ...SIGNAL_IDS] as const;

export const STEP_IDS = [
  "check-checkpoints",
  "verify-unknown-commit",
  "remove-duplicate-commit",
  "confirm-recommit",
  "raise-commit-retries",
  "commit-less-often",
  "move-compaction-off-hot-partitions",
  "keep-writer-last-snapshot",
  "one-committer-per-table",
  "restart-connect-coordinator",
  "review-isolation-level",
  "apply-schema-first",
  "idempotent-restart",
  "renew-catalog-credential",
  "check-catalog-service",
  "raise-writer-memory",
  "fix-writer-error",
] as const;

/**
 * What a commit-error's root exception says went wrong; the class decides the step
 * (RUNBOOK §3 commit-error, §4 step 2).
 */
export const COMMIT_ERROR_CAUSES = ["auth", "unavailable", "resources", "writer-error"] as const;
export type CommitErrorCause = (typeof COMMIT_ERROR_CAUSES)[number];

/**
 * What a check the diagnosis already did found, when that decides the step: an unknown commit
 * that landed and was committed again ("duplicate") leaves the duplicate to remove; one that did not
 * land while the writer committed since ("recommitted") leaves its data to confirm landed once.
 */
export const CHECK_ANSWERS = ["duplicate", "recommitted"] as const;

export const AUDIT_CHECK_IDS = [
  "retry-budget",
  "isolation-level",
  "write-mode",
  "delete-file-compaction",
  "distribution-mode",
  "target-file-size",
  "metadata-cleanup",
  "snapshot-expiry",
  "snapshot-count",
  "writer-identity",
  "wap-branches",
] as const;

export type TriageId = (typeof TRIAGE_IDS)[number];
export type FindingId = (typeof FINDING_IDS)[number];
export type StepId = (typeof STEP_IDS)[number];
export type AuditCheckId = (typeof AUDIT_CHECK_IDS)[number];

export const SOURCE_NAMES = ["catalog", "flink", "connect", "prometheus"] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** The streaming writers the bot diagnoses: a Flink job or a Kafka Connect sink connector. */
export const WRITER_KINDS = ["flink", "connect"] as const;
export type WriterKind = (typeof WRITER_KINDS)[number];
