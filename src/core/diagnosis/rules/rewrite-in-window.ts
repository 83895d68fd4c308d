// Compaction (replace snapshots) committed between the writer's last success and its failure.

import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { howOften, otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const rewriteInWindow: DiagnosisRule = {
  id: "rewrite-in-window",
  evaluate(ctx) {
    if (!ctx.window || !ctx.troubled) return null;
    const { count, sample, committers } = otherCommits(
      ctx,
      ctx.window.range,
      (s) => s.operation === "replace",
    );
    if (count === 0) return null;
    return finding(
      "rewrite-in-window",
      "warning",
      `Compaction by ${committers.join(", ")} replaced files ${howOften(count)} since the writer's last good commit`,
      compact([snapshotListItem("Replace snapshots in the window", sample, count), windowItem(ctx)]),
    );
  },
};
