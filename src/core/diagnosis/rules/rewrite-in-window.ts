// Compaction (replace snapshots) committed between the writer's last success and its failure.

import type { Snapshot } from "../../evidence/model.js";
import { forEachOther } from "../context.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { committerKey, committerOf, describeCommitter } from "../snapshots.js";

export const rewriteInWindow: DiagnosisRule = {
  id: "rewrite-in-window",
  evaluate(ctx) {
    if (!ctx.window || !ctx.troubled) return null;
    const found: Snapshot[] = [];
    let count = 0;
    const who = new Map<string, string>();
    forEachOther(ctx, ctx.window.range, (s) => {
      if (s.operation !== "replace") return;
      count++;
      if (found.length < 5) found.push(s);
      const identity = committerOf(s);
      who.set(committerKey(identity), describeCommitter(identity));
    });
    if (count === 0) return null;
    return finding(
      "rewrite-in-window",
      "warning",
      `Compaction by ${[...who.values()].join(", ")} replaced files ${count === 1 ? "once" : `${count} times`} since the writer's last good commit`,
      compact([snapshotListItem("Replace snapshots in the window", found, count), windowItem(ctx)]),
    );
  },
};
