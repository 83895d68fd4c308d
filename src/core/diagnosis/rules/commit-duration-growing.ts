// lastCommitDurationMs climbing across samples: retries against other committers eat the time.
// Fires when the newest sample is at least 1.5x the oldest, at least 1 s longer, and most steps rise.

import type { MetricPoint } from "../../evidence/model.js";
import { prometheusSeries } from "../context.js";
import { type DiagnosisRule, finding } from "../rule.js";

const MIN_SAMPLES = 3;
const MIN_RATIO = 1.5;
const MIN_GROWTH_MS = 1000;
const MIN_RISING_SHARE = 0.6;

export function isGrowing(points: readonly MetricPoint[]): boolean {
  if (points.length < MIN_SAMPLES) return false;
  const first = points[0]!.value;
  const last = points[points.length - 1]!.value;
  if (last < first * MIN_RATIO || last - first < MIN_GROWTH_MS) return false;
  let rising = 0;
  for (let i = 1; i < points.length; i++) if (points[i]!.value >= points[i - 1]!.value) rising++;
  return rising / (points.length - 1) >= MIN_RISING_SHARE;
}

export const commitDurationGrowing: DiagnosisRule = {
  id: "commit-duration-growing",
  evaluate(ctx) {
    const fromFlink = ctx.job?.committer?.lastCommitDurationHistory;
    const points =
      fromFlink && fromFlink.length >= MIN_SAMPLES
        ? fromFlink
        : prometheusSeries(ctx.evidence, "lastCommitDurationMs");
    if (!points || !isGrowing(points)) return null;
    const first = points[0]!;
    const last = points[points.length - 1]!;
    const source = points === fromFlink ? "flink" : "prometheus";
    return finding(
      "commit-duration-growing",
      "warning",
      `Commit duration grew from ${Math.round(first.value).toLocaleString("en-US")} ms to ${Math.round(last.value).toLocaleString("en-US")} ms across ${points.length} samples: commits spend longer retrying`,
      [
        {
          source,
          detail: `lastCommitDurationMs samples: ${points
            .slice(-8)
            .map((p) => Math.round(p.value))
            .join(" → ")}`,
          data: {
            metric: "lastCommitDurationMs",
            samples: points.slice(-20).map((p) => p.value),
            first: first.value,
            last: last.value,
          },
        },
      ],
    );
  },
};
