// Two Flink jobs whose commits interleave are both writing the table. A job that replaced an
// older one (a restart with a new job id) does not overlap in time, so it does not count.

import { plural } from "../../plural.js";
import type { EvidenceItem } from "../../report/schema.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { iso } from "../snapshots.js";

interface JobSpan {
  jobId: string;
  first: number;
  last: number;
  count: number;
}

export const multipleFlinkJobs: DiagnosisRule = {
  id: "multiple-flink-jobs",
  evaluate(ctx) {
    if (!ctx.window) return null;
    const spans = new Map<string, JobSpan>();
    const { from, to } = ctx.window.lookback;
    for (let i = from; i < to; i++) {
      const s = ctx.snapshots[i]!;
      const jobId = s.summary["flink.job-id"];
      if (!jobId) continue;
      const span = spans.get(jobId);
      if (span) {
        span.last = s.timestampMs;
        span.count++;
      } else spans.set(jobId, { jobId, first: s.timestampMs, last: s.timestampMs, count: 1 });
    }
    if (spans.size < 2) return null;
    const all = [...spans.values()].sort((a, b) => b.count - a.count);
    const overlapping = all.filter((a) => all.some((b) => b !== a && a.first < b.last && b.first < a.last));
    if (overlapping.length < 2) return null;
    const items: EvidenceItem[] = overlapping.slice(0, 5).map((span) => ({
      source: "catalog",
      detail: `flink.job-id ${span.jobId}: ${plural(span.count, "snapshot")} from ${iso(span.first)} to ${iso(span.last)}`,
      data: { jobId: span.jobId, snapshots: span.count, first: iso(span.first), last: iso(span.last) },
    }));
    return finding(
      "multiple-flink-jobs",
      "critical",
      `${overlapping.length} Flink jobs commit to this table with interleaved snapshots; every commit of one races the other`,
      items,
    );
  },
};
