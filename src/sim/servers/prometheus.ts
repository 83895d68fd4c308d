// Prometheus HTTP API (instant and range queries) answering the scenario's canned series. A
// series' last value sits at the lakehouse start time; earlier values one step apart.

import type { SimClock } from "../clock.js";
import type { World } from "../model/world.js";
import { parseDuration } from "../time.js";
import { json, type SimRequest, type SimResponse } from "./http.js";

interface Series {
  query: string;
  name: string;
  labels: Record<string, string>;
  stepMs: number;
  values: number[];
}

export function prometheusErrorBody(status: number): string {
  const type = status === 400 ? "bad_data" : status === 503 ? "unavailable" : "internal";
  return JSON.stringify({ status: "error", errorType: type, error: `request failed with HTTP ${status}` });
}

function fold(q: string): string {
  return q.replace(/\s+/g, "").trim();
}

/** Prometheus accepts unix seconds (with fractions) or RFC 3339. */
function parseTime(text: string | null, fallbackMs: number): number | undefined {
  if (text === null || text === "") return fallbackMs;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

function parseStep(text: string | null): number | undefined {
  if (text === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

function formatValue(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(12)));
}

export function createPrometheusRouter(world: World, clock: SimClock): (req: SimRequest) => SimResponse {
  const series: Series[] = (world.scenario.prometheus?.series ?? []).map((s) => ({
    query: fold(s.query),
    name: /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(s.query)?.[0] ?? s.query,
    labels: s.labels,
    stepMs: parseDuration(s.step),
    values: s.values,
  }));
  const anchor = world.startMs;

  const bad = (message: string) => json(400, { status: "error", errorType: "bad_data", error: message });

  function matching(query: string): Series[] {
    const q = fold(query);
    const exact = series.filter((s) => s.query === q);
    return exact.length ? exact : series.filter((s) => s.name === q);
  }

  /** The newest sample at or before `atMs`, unless it is stale (older than 5 minutes past its step). */
  function valueAt(s: Series, atMs: number): number | undefined {
    const stepsBack = Math.ceil((anchor - atMs) / s.stepMs);
    const idx = s.values.length - 1 - Math.max(0, stepsBack);
    if (idx < 0 || idx >= s.values.length) return undefined;
    const sampleAt = anchor - (s.values.length - 1 - idx) * s.stepMs;
    if (atMs - sampleAt > s.stepMs + 300_000) return undefined;
    return s.values[idx];
  }

  function metric(s: Series): Record<string, string> {
    return { __name__: s.name, ...s.labels };
  }

  return (req) => {
    const params = new URLSearchParams(req.query);
    if (
      req.method === "POST" &&
      (req.headers["content-type"] ?? "").includes("application/x-www-form-urlencoded")
    ) {
      for (const [k, v] of new URLSearchParams(req.body)) params.set(k, v);
    }
    const query = params.get("query");
    if (req.pathname === "/api/v1/query") {
      if (!query)
        return bad('invalid parameter "query": unknown position: parse error: no expression found in input');
      const at = parseTime(params.get("time"), clock.now());
      if (at === undefined) return bad('invalid parameter "time": cannot parse to a valid timestamp');
      const result = matching(query).flatMap((s) => {
        const v = valueAt(s, at);
        return v === undefined ? [] : [{ metric: metric(s), value: [at / 1000, formatValue(v)] }];
      });
      return json(200, { status: "success", data: { resultType: "vector", result } });
    }
    if (req.pathname === "/api/v1/query_range") {
      if (!query)
        return bad('invalid parameter "query": unknown position: parse error: no expression found in input');
      const start = parseTime(params.get("start"), Number.NaN);
      const end = parseTime(params.get("end"), Number.NaN);
      const step = parseStep(params.get("step"));
      if (start === undefined || end === undefined || Number.isNaN(start) || Number.isNaN(end)) {
        return bad('invalid parameter "start"/"end": cannot parse to a valid timestamp');
      }
      if (step === undefined || step <= 0) {
        return bad(
          'invalid parameter "step": zero or negative query resolution step widths are not accepted',
        );
      }
      if (end < start) return bad('invalid parameter "end": end timestamp must not be before start time');
      if ((end - start) / step > 11_000) {
        return bad(
          "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)",
        );
      }
      const result = matching(query).flatMap((s) => {
        const values: [number, string][] = [];
        for (let t = start; t <= end; t += step) {
          const v = valueAt(s, t);
          if (v !== undefined) values.push([t / 1000, formatValue(v)]);
        }
        return values.length ? [{ metric: metric(s), values }] : [];
      });
      return json(200, { status: "success", data: { resultType: "matrix", result } });
    }
    return json(404, { status: "error", errorType: "not_found", error: `no route ${req.pathname}` });
  };
}
