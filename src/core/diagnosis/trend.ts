// Trend of a range series as a person reads a graph: the least-squares slope (how fast it climbs)
// and the ratio of the end to the start (how far it moved). One noisy sample moves neither much.

import type { MetricPoint } from "../evidence/model.js";

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function trendOf(points: readonly MetricPoint[]) {
  if (points.length < 2) return undefined;
  const t0 = points[0]!.atMs;
  const xs = points.map((p) => (p.atMs - t0) / 60_000);
  const ys = points.map((p) => p.value);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  const quarter = Math.max(1, Math.floor(points.length / 4));
  const start = median(ys.slice(0, quarter));
  const end = median(ys.slice(-quarter));
  return {
    samples: points.length,
    /** Least-squares slope in value units per minute. */
    slopePerMinute: den === 0 ? 0 : num / den,
    /** Median of the last quarter of the samples over the median of the first quarter. */
    ratio: start > 0 ? end / start : end > 0 ? Number.POSITIVE_INFINITY : 1,
    /** Median of the first and last quarters. */
    start,
    end,
    spanMs: points[points.length - 1]!.atMs - t0,
  };
}
