// The Prometheus client against the simulated query API: instant and range queries, sample
// parsing, and every transport fault.

import { describe, expect, it } from "vitest";
import { createPrometheusClient } from "../../../src/adapters/evidence/prometheus-client.js";
import { CodedError, ErrorCode } from "../../../src/errors.js";
import type { FaultKind } from "../../../src/sim/lakehouse.js";
import { useLakehouse } from "../../support/lakehouse-ports.js";

const METRIC =
  "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_elapsedSecondsSinceLastSuccessfulCommit";
// Long enough for a healthy read on a busy machine; the faults below outlast it by far.
const TIMEOUT_MS = 1500;

const sim = useLakehouse("competing-appends");
const { agent } = sim;

const client = () =>
  createPrometheusClient({ url: sim.lakehouse.urls.prometheus, dispatcher: agent, timeoutMs: TIMEOUT_MS });

describe("prometheus client", () => {
  it("answers an instant query with labels and a number", async () => {
    const result = await client().query(METRIC, sim.lakehouse.clock.now());
    expect(result).toHaveLength(1);
    expect(result[0]?.labels.table).toBe("iceberg_db_events");
    expect(result[0]?.value).toBe(3300);
  });

  it("answers a range query with points in order, in milliseconds", async () => {
    const end = sim.lakehouse.clock.now();
    const [series] = await client().queryRange(METRIC, end - 2 * 3_600_000, end, 300);
    const points = series?.points ?? [];
    expect(points.length).toBeGreaterThan(20);
    expect(points.at(-1)?.value).toBe(3300);
    expect(points.every((p, i) => i === 0 || p.atMs - (points[i - 1]?.atMs ?? 0) === 300_000)).toBe(true);
    const call = sim.lakehouse.requests.filter((r) => r.path === "/api/v1/query_range").at(-1);
    expect(call?.query.step).toBe("300");
  });

  it("reports Prometheus's own error text for a bad query", async () => {
    const error = await client()
      .queryRange(METRIC, 10_000, 0, 300)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodedError);
    expect((error as CodedError).details?.status).toBe(400);
    expect((error as CodedError).message).toContain("end timestamp must not be before start time");
  });

  const faults: [FaultKind, ErrorCode, Record<string, unknown>][] = [
    ["latency", ErrorCode.SourceTimeout, { ms: TIMEOUT_MS + 1500 }],
    ["status", ErrorCode.SourceHttpStatus, { status: 503 }],
    ["hang", ErrorCode.SourceTimeout, {}],
    ["reset", ErrorCode.SourceUnreachable, {}],
    ["truncate", ErrorCode.SourceMalformed, {}],
    ["non-json", ErrorCode.SourceMalformed, {}],
  ];
  it.each(faults)("turns a %s fault into %s within the timeout", async (kind, code, extra) => {
    sim.lakehouse.faults.inject({ service: "prometheus", path: "/api/v1/query", kind, times: 1, ...extra });
    const error = await client()
      .query(METRIC, sim.lakehouse.clock.now())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CodedError);
    expect((error as CodedError).code).toBe(code);
    // A timeout comes from the client's own deadline (said by the error, not timed).
    if (code === ErrorCode.SourceTimeout) expect((error as CodedError).details?.timeoutMs).toBe(TIMEOUT_MS);
  });
});
