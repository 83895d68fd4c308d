// The words and emoji people see for our ids. Ids stay the contract; these are only their faces.

import type { FindingId, SourceName, StepId, TriageId } from "../../../core/ids.js";
import { escapeMrkdwn } from "./limits.js";
import type { IncidentState } from "./view-models.js";

export const VERDICT_LABELS: Record<TriageId, string> = {
  "commit-not-attempted": "commits not attempted (checkpoints are failing)",
  "commit-failing": "commits failing",
  "commit-conflict": "commit conflict",
  "commit-state-unknown": "commit state unknown",
  "validation-conflict": "validation conflict",
  "connect-coordinator-stopped": "Kafka Connect coordinator stopped",
  "commit-error": "commit error",
  "writer-never-committed": "writer never committed",
  "writer-idle": "quiet by design",
  healthy: "healthy",
};

const FINDING_LABELS: Partial<Record<FindingId, string>> = {
  ...VERDICT_LABELS,
  "rewrite-in-window": "compaction in the commit window",
  "row-level-in-window": "row-level changes in the commit window",
  "multiple-flink-jobs": "more than one Flink job commits",
  "multiple-writers": "other engines commit too",
  "committers-inside-job": "several committers inside one job",
  "unattributed-commits": "commits with no writer identity",
  "competing-appends": "competing appends",
  "metadata-only-change": "metadata-only change",
  "schema-churn": "schema churn",
  "branch-commits": "writer commits to a branch",
  "commit-duration-growing": "commit duration growing",
  "many-files-per-commit": "many files per commit",
  "frequent-commits": "frequent commits",
  "default-retry-budget": "default retry budget",
  "writer-last-snapshot-at-risk": "writer's last snapshot at risk",
};

export function findingLabel(id: FindingId): string {
  return FINDING_LABELS[id] ?? id;
}

export const STEP_TITLES: Record<StepId, string> = {
  "check-checkpoints": "fix checkpoints first",
  "verify-unknown-commit": "check whether the commit landed",
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

export const SOURCE_LABELS: Record<SourceName, string> = {
  catalog: "Iceberg catalog",
  flink: "Flink REST",
  connect: "Kafka Connect",
  prometheus: "Prometheus",
};

export const STATE_LABELS: Record<IncidentState, string> = {
  open: "open",
  diagnosing: "diagnosing",
  "awaiting-approval": "waiting for approval",
  applying: "applying",
  verifying: "verifying",
  resolved: "resolved",
  stalled: "stalled",
  stopped: "stopped",
};

export const STATE_EMOJI: Record<IncidentState, string> = {
  open: ":red_circle:",
  diagnosing: ":mag:",
  "awaiting-approval": ":large_yellow_circle:",
  applying: ":gear:",
  verifying: ":hourglass_flowing_sand:",
  resolved: ":white_check_mark:",
  stalled: ":warning:",
  stopped: ":octagonal_sign:",
};

/** A Slack user (U…/W…) or user group (S…) id as a mention; anything else as escaped text. */
export function mention(id: string): string {
  if (/^[UW][A-Z0-9]+$/.test(id)) return `<@${id}>`;
  if (/^S[A-Z0-9]+$/.test(id)) return `<!subteam^${id}>`;
  return escapeMrkdwn(id);
}
