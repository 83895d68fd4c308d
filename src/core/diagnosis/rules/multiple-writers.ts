// Writers of other engines commit data to the streaming writer's table: a Spark app (batch or
// structured streaming), Trino queries, another connector, or an engine known only by its
// engine-name. Each commit moves the metadata pointer the streaming writer must swap. Counted in
// the lookback; other Flink jobs are multiple-flink-jobs' and compactions rewrite-in-window's.
// Informational while the writer commits; a warning while it is in trouble.

import {
  type CommitterIdentity,
  committerKey,
  committerOf,
  describeCommitter,
} from "../../attribution/attribute.js";
import type { Snapshot } from "../../evidence/model.js";
import { plural } from "../../plural.js";
import { forEachOther } from "../context.js";
import { describeWriter, snapshotListItem } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

interface Other {
  identity: CommitterIdentity;
  count: number;
  first: number;
  last: number;
}

/** Kinds another engine's writer takes; an id-less commit is unattributed-commits', a Flink job multiple-flink-jobs'. */
const COUNTED: ReadonlySet<CommitterIdentity["kind"]> = new Set([
  "spark",
  "trino",
  "connect",
  "engine",
  "other",
]);

/** Trino commits once per query: its writer is Trino, named with how many queries committed. */
function nameOf(o: Other): string {
  return o.identity.kind === "trino"
    ? `Trino (${plural(o.count, "query", "queries")})`
    : describeCommitter(o.identity);
}

export const multipleWriters: DiagnosisRule = {
  id: "multiple-writers",
  evaluate(ctx) {
    const w = ctx.window;
    if (!w || !ctx.writer || !ctx.writerNewest) return null;
    const others = new Map<string, Other>();
    const sample: Snapshot[] = [];
    let commits = 0;
    forEachOther(ctx, w.lookback, (s) => {
      if (s.operation === "replace") return;
      const identity = committerOf(s);
      if (!COUNTED.has(identity.kind)) return;
      commits++;
      sample.push(s);
      if (sample.length > 5) sample.shift();
      const key = committerKey(identity);
      const seen = others.get(key);
      if (seen) {
        seen.count++;
        seen.last = s.timestampMs;
      } else others.set(key, { identity, count: 1, first: s.timestampMs, last: s.timestampMs });
    });
    if (others.size === 0) return null;
    const listed = [...others.values()].sort((a, b) => b.count - a.count);
    const names = listed.slice(0, 3).map(nameOf);
    const more = listed.length > 3 ? ` and ${listed.length - 3} more` : "";
    return finding(
      "multiple-writers",
      ctx.troubled ? "warning" : "info",
      `${listed.length + 1} writers commit to this table: ${describeWriter(ctx)} and ${names.join(", ")}${more} (${plural(commits, "commit")} of theirs in the last ${plural(Math.round((w.endMs - w.lookbackStartMs) / 60_000), "minute")})`,
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
        snapshotListItem("Their newest commits", sample.reverse(), commits),
      ],
    );
  },
};
