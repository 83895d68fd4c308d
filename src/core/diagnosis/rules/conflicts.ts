// A commit that lost to another committer, quoted from its exception:
//   commit-conflict      CommitFailedException: another committer swapped the metadata first and
//                        the retries ran out;
//   validation-conflict  ValidationException: a row-level commit found conflicting files. Iceberg
//                        never retries these.

import type { TriageId } from "../../ids.js";
import type { DiagnosisContext } from "../context.js";
import { compact, failureItem, quoteOf, writerLastCommit } from "../evidence-items.js";
import type { FailureKind } from "../failures.js";
import { type DiagnosisRule, finding } from "../rule.js";

function conflictRule(
  id: TriageId,
  kind: FailureKind,
  summary: (count: number, ctx: DiagnosisContext) => string,
): DiagnosisRule {
  return {
    id,
    evaluate(ctx) {
      const failures = ctx.failures.filter((f) => f.kind === kind);
      const newest = failures[0];
      if (!newest) return null;
      return finding(
        "critical",
        summary(failures.length, ctx),
        compact([failureItem(newest, failures.length), writerLastCommit(ctx)]),
        { quote: quoteOf(ctx.failures, newest) },
      );
    },
  };
}

export const commitConflict = conflictRule(
  "commit-conflict",
  "commit-failed",
  (count, ctx) =>
    `Commit conflict: CommitFailedException ${count > 1 ? `${count} times` : "once"}${ctx.writerNewest ? " since the writer's last good commit" : ""}; retries did not get past the other committers`,
);

export const validationConflict = conflictRule(
  "validation-conflict",
  "validation",
  () =>
    "A row-level commit failed validation against files another writer committed; Iceberg does not retry this, the job must re-run",
);
