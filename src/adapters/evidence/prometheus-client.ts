// PrometheusPort over the HTTP API (instant and range queries). Sample values arrive as strings
// and may be NaN or ±Inf; those samples are dropped rather than passed on as numbers. The answer
// schemas are built on their first parse (z.lazy), so a run without Prometheus never builds them.

import { z } from "zod";
import type { MetricPoint } from "../../core/evidence/model.js";
import type { PrometheusPort } from "../../services/ports.js";
import { jsonGetter, type SourceClientOptions } from "./http.js";

const SampleSchema = z.lazy(() => z.tuple([z.number(), z.string()]));

/** A successful query's answer: labelled series of the given result type, each with its samples. */
function resultSchema<S extends z.ZodRawShape>(resultType: "vector" | "matrix", samples: S) {
  return z.object({
    status: z.literal("success"),
    data: z.object({
      resultType: z.literal(resultType),
      result: z.array(z.object({ metric: z.record(z.string(), z.string()), ...samples })),
    }),
  });
}

const VectorSchema = z.lazy(() => resultSchema("vector", { value: SampleSchema }));
const MatrixSchema = z.lazy(() => resultSchema("matrix", { values: z.array(SampleSchema) }));

export function createPrometheusClient(options: SourceClientOptions): PrometheusPort {
  const get = jsonGetter({ ...options, source: "prometheus" });

  return {
    async query(promql, atMs) {
      const body = await get("api/v1/query", VectorSchema, { query: promql, time: seconds(atMs) });
      return body.data.result.flatMap((series) => {
        const value = Number(series.value[1]);
        return Number.isFinite(value) ? [{ labels: series.metric, value }] : [];
      });
    },

    async queryRange(promql, startMs, endMs, stepSeconds) {
      const body = await get("api/v1/query_range", MatrixSchema, {
        query: promql,
        start: seconds(startMs),
        end: seconds(endMs),
        step: String(stepSeconds),
      });
      return body.data.result.map((series) => ({ labels: series.metric, points: toPoints(series.values) }));
    },
  };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

function toPoints(values: readonly [number, string][]): MetricPoint[] {
  const points: MetricPoint[] = [];
  for (const [at, raw] of values) {
    const value = Number(raw);
    if (Number.isFinite(value)) points.push({ atMs: Math.round(at * 1000), value });
  }
  return points;
}
