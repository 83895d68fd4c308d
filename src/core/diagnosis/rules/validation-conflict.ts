// ValidationException: a row-level commit found conflicting files. Iceberg never retries these.

import { compact, failureItem, quoteOf, writerLastCommit } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const validationConflict: DiagnosisRule = {
  id: "validation-conflict",
  evaluate(ctx) {
    const failures = ctx.failures.filter((f) => f.kind === "validation");
    const newest = failures[0];
    if (!newest) return null;
    const found = finding(
      "validation-conflict",
      "critical",
      "A row-level commit failed validation against files another writer committed; Iceberg does not retry this, the job must re-run",
      compact([failureItem(newest, failures.length), writerLastCommit(ctx)]),
    );
    return found ? { ...found, quote: quoteOf(ctx.failures, newest) } : null;
  },
};
