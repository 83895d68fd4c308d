// CommitFailedException: another committer swapped the metadata first and the retries ran out.

import { compact, failureItem, quoteOf, writerLastCommit } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const commitConflict: DiagnosisRule = {
  id: "commit-conflict",
  evaluate(ctx) {
    const conflicts = ctx.failures.filter((f) => f.kind === "commit-failed");
    const newest = conflicts[0];
    if (!newest) return null;
    const since = ctx.writerNewest ? " since the writer's last good commit" : "";
    const found = finding(
      "commit-conflict",
      "critical",
      `Commit conflict: CommitFailedException ${conflicts.length > 1 ? `${conflicts.length} times` : "once"}${since}; retries did not get past the other committers`,
      compact([failureItem(newest, conflicts.length), writerLastCommit(ctx)]),
    );
    return found ? { ...found, quote: quoteOf(ctx.failures, newest) } : null;
  },
};
