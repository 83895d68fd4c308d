// Quiet by design: the writer's silence fits its own history (quiet hours that recur daily, or idle
// input with empty commits skipped). A note, never a page: the report says when commits are
// expected again (RUNBOOK §3 writer-idle).

import { compact, describeWriter, writerLastCommit } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const writerIdle: DiagnosisRule = {
  id: "writer-idle",
  evaluate(ctx) {
    const idle = ctx.idle;
    if (!idle || ctx.failures.length > 0) return null;
    return finding(
      "info",
      `${describeWriter(ctx)} is ${idle.summary}`,
      compact([writerLastCommit(ctx), ...idle.evidence]),
    );
  },
};
