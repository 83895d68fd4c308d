// Every diagnosis rule, one per finding id. A test checks the list covers ids.ts exactly.

import type { Finding } from "../report/schema.js";
import type { DiagnosisContext } from "./context.js";
import type { DiagnosisRule } from "./rule.js";
import { branchCommits } from "./rules/branch-commits.js";
import { commitDurationGrowing } from "./rules/commit-duration-growing.js";
import { commitError } from "./rules/commit-error.js";
import { commitFailing } from "./rules/commit-failing.js";
import { commitNotAttempted } from "./rules/commit-not-attempted.js";
import { commitStateUnknown } from "./rules/commit-state-unknown.js";
import { committersInsideJob } from "./rules/committers-inside-job.js";
import { competingAppends } from "./rules/competing-appends.js";
import { commitConflict, validationConflict } from "./rules/conflicts.js";
import { connectCoordinatorStopped } from "./rules/connect-coordinator-stopped.js";
import { defaultRetryBudget } from "./rules/default-retry-budget.js";
import { frequentCommits } from "./rules/frequent-commits.js";
import { healthy } from "./rules/healthy.js";
import { rewriteInWindow, rowLevelInWindow, unattributedCommits } from "./rules/in-window.js";
import { manyFilesPerCommit } from "./rules/many-files-per-commit.js";
import { metadataOnlyChange } from "./rules/metadata-only-change.js";
import { multipleFlinkJobs } from "./rules/multiple-flink-jobs.js";
import { multipleWriters } from "./rules/multiple-writers.js";
import { schemaChurn } from "./rules/schema-churn.js";
import { writerIdle } from "./rules/writer-idle.js";
import { writerLastSnapshotAtRisk } from "./rules/writer-last-snapshot-at-risk.js";
import { writerNeverCommitted } from "./rules/writer-never-committed.js";

export const RULES: readonly DiagnosisRule[] = [
  commitStateUnknown,
  commitError,
  connectCoordinatorStopped,
  commitNotAttempted,
  validationConflict,
  commitConflict,
  commitFailing,
  writerNeverCommitted,
  writerIdle,
  healthy,
  rewriteInWindow,
  rowLevelInWindow,
  multipleFlinkJobs,
  multipleWriters,
  committersInsideJob,
  unattributedCommits,
  competingAppends,
  metadataOnlyChange,
  schemaChurn,
  branchCommits,
  commitDurationGrowing,
  manyFilesPerCommit,
  frequentCommits,
  defaultRetryBudget,
  writerLastSnapshotAtRisk,
];

/** Runs every rule; a finding is kept only when its rule returned one. */
export function runRules(context: DiagnosisContext): Finding[] {
  return RULES.flatMap((rule) => {
    const found = rule.evaluate(context);
    return found ? [{ id: rule.id, ...found }] : [];
  });
}
