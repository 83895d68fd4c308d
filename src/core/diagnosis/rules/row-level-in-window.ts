// Overwrite or delete commits from another committer (a Spark MERGE, UPDATE or DELETE) in the window.

import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { howOften, otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const rowLevelInWindow: DiagnosisRule = {
  id: "row-level-in-window",
  evaluate(ctx) {
    if (!ctx.window || !ctx.troubled) return null;
    const { count, sample, committers } = otherCommits(
      ctx,
      ctx.window.range,
      (s) => s.operation === "overwrite" || s.operation === "delete",
    );
    if (count === 0) return null;
    return finding(
      "row-level-in-window",
      "warning",
      `Row-level commits (overwrite/delete) by ${committers.join(", ")} landed ${howOften(count)} since the writer's last good commit`,
      compact([snapshotListItem("Overwrite/delete snapshots in the window", sample, count), windowItem(ctx)]),
    );
  },
};
