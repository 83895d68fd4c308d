// Snapshots in the window that carry no writer identity at all: someone commits without saying who.

import { committerOf } from "../../attribution/attribute.js";
import type { Snapshot } from "../../evidence/model.js";
import { plural } from "../../plural.js";
import { forEachOther } from "../context.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const unattributedCommits: DiagnosisRule = {
  id: "unattributed-commits",
  evaluate(ctx) {
    if (!ctx.window || !ctx.troubled) return null;
    const found: Snapshot[] = [];
    let count = 0;
    forEachOther(ctx, ctx.window.range, (s) => {
      if (committerOf(s).kind !== "anonymous") return;
      count++;
      if (found.length < 5) found.push(s);
    });
    if (count === 0) return null;
    return finding(
      "unattributed-commits",
      "warning",
      `${plural(count, "snapshot")} in the window ${count === 1 ? "carries" : "carry"} no writer identity (no flink.job-id, spark.app.id or Connect keys)`,
      compact([snapshotListItem("Snapshots without a writer identity", found, count), windowItem(ctx)]),
    );
  },
};
