// Two or more Flink jobs commit to the table, or are set up to: their commits race each other.
// A job counts when its snapshots interleave with another job's in the lookback (a job that
// replaced an older one, a restart with a new id, does not overlap in time), or when it is live
// (running, restarting, failing) with a committer or sink that names the table. Two jobs may share
// a name; the id tells them apart.

import { committerOf } from "../../attribution/attribute.js";
import { plural } from "../../plural.js";
import type { EvidenceItem } from "../../report/schema.js";
import { LIVE_JOB_STATES } from "../context.js";
import { flinkJobLabel } from "../evidence-items.js";
import { commitsIn, type OtherCommitter } from "../other-commits.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

export const multipleFlinkJobs: DiagnosisRule = {
  id: "multiple-flink-jobs",
  evaluate(ctx) {
    const spans = new Map<string, OtherCommitter>();
    const inLookback = ctx.window
      ? commitsIn(ctx.snapshots, ctx.window.lookback, (s) => committerOf(s).kind === "flink").committers
      : [];
    for (const c of inLookback) if (c.identity.kind === "flink") spans.set(c.identity.jobId, c);
    const all = [...spans.entries()].sort(([, a], [, b]) => b.count - a.count);
    const interleaved = all.filter(([, a]) =>
      all.some(([, b]) => b !== a && a.first < b.last && b.first < a.last),
    );
    const live = ctx.flinkWriters.filter((w) => LIVE_JOB_STATES.has(w.job.state));
    const ids = new Set([...interleaved.map(([jobId]) => jobId), ...live.map((w) => w.job.jobId)]);
    if (ids.size < 2) return null;
    const label = (jobId: string) => flinkJobLabel(jobId, ctx.jobNames.get(jobId));
    const items: EvidenceItem[] = [];
    for (const jobId of ids) {
      const span = spans.get(jobId);
      const job = live.find((w) => w.job.jobId === jobId)?.job;
      const parts = [
        ...(span ? [`${plural(span.count, "snapshot")} from ${iso(span.first)} to ${iso(span.last)}`] : []),
        ...(job ? [`${job.state} in Flink, its sink names the table`] : []),
      ];
      items.push({
        source: span ? "catalog" : "flink",
        detail: `Flink job ${label(jobId)}, flink.job-id ${jobId}: ${parts.join("; ")}`,
        data: {
          jobId,
          jobName: ctx.jobNames.get(jobId) ?? null,
          ...(span ? { snapshots: span.count, first: iso(span.first), last: iso(span.last) } : {}),
          ...(job ? { state: job.state } : {}),
        },
      });
      if (items.length >= 5) break;
    }
    return finding(
      "critical",
      `${ids.size} Flink jobs commit to this table (${[...ids].slice(0, 3).map(label).join(", ")}); every commit of one races the others`,
      items,
    );
  },
};
