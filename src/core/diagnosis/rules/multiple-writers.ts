// Writers of other engines commit data to the streaming writer's table: a Spark app (batch or
// structured streaming), Trino queries, another connector, or an engine known only by its
// engine-name. Each commit moves the metadata pointer the streaming writer must swap. Counted in
// the lookback; other Flink jobs are multiple-flink-jobs' and compactions rewrite-in-window's.
// Informational while the writer commits; a warning while it is in trouble.

import { type CommitterIdentity, committerOf, describeCommitter } from "../../attribution/attribute.js";
import { plural } from "../../plural.js";
import { describeWriter, snapshotListItem } from "../evidence-items.js";
import { type OtherCommitter, otherCommits } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

/** Kinds another engine's writer takes; an id-less commit is unattributed-commits', a Flink job multiple-flink-jobs'. */
const COUNTED: ReadonlySet<CommitterIdentity["kind"]> = new Set([
  "spark",
  "trino",
  "connect",
  "engine",
  "other",
]);

/** Trino commits once per query: its writer is Trino, named with how many queries committed. */
function nameOf(o: OtherCommitter): string {
  return o.identity.kind === "trino"
    ? `Trino (${plural(o.count, "query", "queries")})`
    : describeCommitter(o.identity);
}

export const multipleWriters: DiagnosisRule = {
  id: "multiple-writers",
  evaluate(ctx) {
    const w = ctx.window;
    if (!w || !ctx.writer || !ctx.writerNewest) return null;
    const found = otherCommits(
      ctx,
      w.lookback,
      (s) => s.operation !== "replace" && COUNTED.has(committerOf(s).kind),
    );
    if (found.count === 0) return null;
    const listed = [...found.committers].sort((a, b) => b.count - a.count);
    const names = listed.slice(0, 3).map(nameOf);
    const more = listed.length > 3 ? ` and ${listed.length - 3} more` : "";
    return finding(
      ctx.troubled ? "warning" : "info",
      `${listed.length + 1} writers commit to this table: ${describeWriter(ctx)} and ${names.join(", ")}${more} (${plural(found.count, "commit")} of theirs in the last ${plural(Math.round((w.endMs - w.lookbackStartMs) / 60_000), "minute")})`,
      [
        ...listed.slice(0, 4).map((o) => ({
          source: "catalog" as const,
          detail: `${nameOf(o)}: ${plural(o.count, "commit")} from ${iso(o.first)} to ${iso(o.last)}`,
          data: {
            writer: nameOf(o),
            kind: o.identity.kind,
            commits: o.count,
            first: iso(o.first),
            last: iso(o.last),
          },
        })),
        snapshotListItem("Their newest commits", found.newest, found.count),
      ],
    );
  },
};
