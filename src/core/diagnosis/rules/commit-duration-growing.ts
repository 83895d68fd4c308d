// lastCommitDurationMs climbing over the range a person would graph: retries against other
// committers eat the time. Judged on the Prometheus range series (or the samples Flink gave):
// fires when the least-squares slope is at least 50 ms per minute (3 s more per hour), the end of
// the range is at least 1.5 times its start, and commits take at least 1 s longer than at the start.

import type { MetricPoint } from "../../evidence/model.js";
import { groupDigits } from "../../plural.js";
import { formatDuration } from "../../words/duration.js";
import { prometheusSeries } from "../context.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { trendOf } from "../trend.js";

const MIN_SAMPLES = 4;
export const MIN_SLOPE_MS_PER_MIN = 50;
export const MIN_RATIO = 1.5;
const MIN_GROWTH_MS = 1000;

export function isGrowing(points: readonly MetricPoint[]): boolean {
  const trend = points.length >= MIN_SAMPLES ? trendOf(points) : undefined;
  return (
    trend !== undefined &&
    trend.slopePerMinute >= MIN_SLOPE_MS_PER_MIN &&
    trend.ratio >= MIN_RATIO &&
    trend.end - trend.start >= MIN_GROWTH_MS
  );
}

const ms = (value: number) => `${groupDigits(Math.round(value))} ms`;

export const commitDurationGrowing: DiagnosisRule = {
  id: "commit-duration-growing",
  evaluate(ctx) {
    // Prometheus' range first: it is what a person graphs; Flink's own samples otherwise.
    const range = prometheusSeries(ctx.evidence, "lastCommitDurationMs");
    const points = range ?? ctx.job?.committer?.lastCommitDurationHistory;
    if (!points || !isGrowing(points)) return null;
    const trend = trendOf(points)!;
    return finding(
      "warning",
      `Commit duration grew from ${ms(trend.start)} to ${ms(trend.end)} over ${formatDuration(trend.spanMs)} (+${ms(trend.slopePerMinute)} a minute): commits spend longer retrying`,
      [
        {
          source: range ? "prometheus" : "flink",
          detail: `lastCommitDurationMs over ${formatDuration(trend.spanMs)}: ${points
            .slice(-8)
            .map((p) => Math.round(p.value))
            .join(" → ")}; slope ${ms(trend.slopePerMinute)}/min, end ${trend.ratio.toFixed(1)}× the start`,
          data: {
            metric: "lastCommitDurationMs",
            samples: points.slice(-20).map((p) => p.value),
            slopeMsPerMinute: Math.round(trend.slopePerMinute),
            ratio: Number(trend.ratio.toFixed(2)),
            first: trend.start,
            last: trend.end,
          },
        },
      ],
    );
  },
};
