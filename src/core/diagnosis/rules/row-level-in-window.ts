// Overwrite or delete commits from another committer (a Spark MERGE, UPDATE or DELETE) in the window.

import type { Snapshot } from "../../evidence/model.js";
import { forEachOther } from "../context.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { committerKey, committerOf, describeCommitter } from "../snapshots.js";

export const rowLevelInWindow: DiagnosisRule = {
  id: "row-level-in-window",
  evaluate(ctx) {
    if (!ctx.window || !ctx.troubled) return null;
    const found: Snapshot[] = [];
    let count = 0;
    const who = new Map<string, string>();
    forEachOther(ctx, ctx.window.range, (s) => {
      if (s.operation !== "overwrite" && s.operation !== "delete") return;
      count++;
      if (found.length < 5) found.push(s);
      const identity = committerOf(s);
      who.set(committerKey(identity), describeCommitter(identity));
    });
    if (count === 0) return null;
    return finding(
      "row-level-in-window",
      "warning",
      `Row-level commits (overwrite/delete) by ${[...who.values()].join(", ")} landed ${count === 1 ? "once" : `${count} times`} since the writer's last good commit`,
      compact([snapshotListItem("Overwrite/delete snapshots in the window", found, count), windowItem(ctx)]),
    );
  },
};
