// Commits by other committers between the writer's last success and its failure, by kind:
//   rewrite-in-window     compaction (replace snapshots);
//   row-level-in-window   overwrite or delete commits (a Spark MERGE, UPDATE or DELETE);
//   unattributed-commits  snapshots that carry no writer identity at all: someone commits without
//                         saying who.

import { committerOf } from "../../attribution/attribute.js";
import type { Snapshot } from "../../evidence/model.js";
import type { FindingId } from "../../ids.js";
import { plural } from "../../plural.js";
import { compact, snapshotListItem, windowItem } from "../evidence-items.js";
import { type OtherCommits, otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";

function inWindowRule(
  id: FindingId,
  matches: (s: Snapshot) => boolean,
  label: string,
  summary: (found: OtherCommits) => string,
): DiagnosisRule {
  return {
    id,
    evaluate(ctx) {
      if (!ctx.window || !ctx.troubled) return null;
      const found = otherCommits(ctx, ctx.window.range, matches);
      if (found.count === 0) return null;
      return finding(
        "warning",
        summary(found),
        compact([snapshotListItem(label, found.oldest, found.count), windowItem(ctx)]),
      );
    },
  };
}

const names = (found: OtherCommits) => found.committers.map((c) => c.name).join(", ");
const howOften = (count: number) => (count === 1 ? "once" : `${count} times`);

export const rewriteInWindow = inWindowRule(
  "rewrite-in-window",
  (s) => s.operation === "replace",
  "Replace snapshots in the window",
  (found) =>
    `Compaction by ${names(found)} replaced files ${howOften(found.count)} since the writer's last good commit`,
);

export const rowLevelInWindow = inWindowRule(
  "row-level-in-window",
  (s) => s.operation === "overwrite" || s.operation === "delete",
  "Overwrite/delete snapshots in the window",
  (found) =>
    `Row-level commits (overwrite/delete) by ${names(found)} landed ${howOften(found.count)} since the writer's last good commit`,
);

export const unattributedCommits = inWindowRule(
  "unattributed-commits",
  (s) => committerOf(s).kind === "anonymous",
  "Snapshots without a writer identity",
  ({ count }) =>
    `${plural(count, "snapshot")} in the window ${count === 1 ? "carries" : "carry"} no writer identity (no flink.job-id, spark.app.id or Connect keys)`,
);
