// The Flink client against the simulated JobManager: job, checkpoints, exception history, the
// committer's metrics found by listing ids (v1 and SinkV2 operator names), back pressure, and
// every transport fault.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlinkClient } from "../../../src/adapters/evidence/flink/client.js";
import { ErrorCode } from "../../../src/errors.js";
import { type FaultKind, type Lakehouse, startLakehouse } from "../../../src/sim/lakehouse.js";
import { loadScenario } from "../../../src/sim/scenarios.js";
import { codedFailure, useLakehouse } from "../../support/lakehouse-ports.js";

const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const TABLE = { namespace: ["db"], name: "events" };
// Long enough for a healthy read on a busy machine; the faults below outlast it by far.
const TIMEOUT_MS = 1500;

const sim = useLakehouse("competing-appends");
const { agent } = sim;

const client = (url = sim.lakehouse.urls.flink) =>
  createFlinkClient({ url, dispatcher: agent, timeoutMs: TIMEOUT_MS });

describe("flink client", () => {
  it("lists jobs from /jobs/overview", async () => {
    const jobs = await client().listJobs();
    expect(jobs).toEqual([expect.objectContaining({ jobId: JOB, name: "events-ingest", state: "RUNNING" })]);
  });

  it("gathers a job's checkpoints, exceptions, committer metrics and back pressure", async () => {
    const evidence = await client().getJobEvidence(JOB, TABLE);
    expect(evidence.job.state).toBe("RUNNING");
    expect(evidence.vertices.length).toBeGreaterThan(1);
    expect(evidence.checkpoints?.counts).toMatchObject({ completed: 1730, failed: 2 });
    expect(evidence.checkpoints?.latestCompleted?.status).toBe("COMPLETED");
    expect(evidence.checkpointConfig?.intervalMs).toBe(300_000);

    expect(evidence.exceptions).toHaveLength(4);
    const [newest] = evidence.exceptions;
    expect(newest?.exceptionName).toBe("org.apache.iceberg.exceptions.CommitFailedException");
    expect(newest?.message).toMatch(/^Commit failed: Requirement failed: branch main has changed/);
    expect(newest?.message).toContain("8207753301169248811");
    const times = evidence.exceptions.map((e) => e.timestampMs);
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    expect(evidence.committer).toMatchObject({
      metricTable: "iceberg_db_events",
      operatorName: "IcebergFilesCommitter",
      lastCommitDurationMs: 860,
      committedDataFilesCount: 8,
    });
    expect(evidence.committer?.elapsedSecondsSinceLastSuccessfulCommit).toBeGreaterThan(3000);
    const committerVertex = evidence.vertices.find((v) => v.vertexId === evidence.committer?.vertexId);
    expect(committerVertex?.name).toContain("IcebergFilesCommitter");
    expect(evidence.backpressure.map((b) => b.vertexId)).toContain(committerVertex?.vertexId);

    // The source vertex is never asked for its (long) metric list: the sink side had the committer.
    const source = evidence.vertices.find((v) => v.name.startsWith("Source"));
    expect(sim.lakehouse.requests.some((r) => r.path.endsWith(`/vertices/${source?.vertexId}/metrics`))).toBe(
      false,
    );

    const gets = sim.lakehouse.requests.filter((r) => r.service === "flink" && r.query.get !== undefined);
    expect(String(gets.at(-1)?.query.get)).toContain(".IcebergFilesCommitter.table.iceberg_db_events.");
  });

  it("leaves the committer out when the job writes some other table", async () => {
    const evidence = await client().getJobEvidence(JOB, { namespace: ["db"], name: "clicks" });
    expect(evidence.committer).toBe(undefined);
    expect(evidence.job.jobId).toBe(JOB);
  });

  it("still answers when back pressure cannot be read", async () => {
    sim.lakehouse.faults.inject({
      service: "flink",
      path: "^/jobs/[0-9a-f]+/vertices/[0-9a-f]+/backpressure$",
      kind: "status",
    });
    const evidence = await client().getJobEvidence(JOB, TABLE);
    expect(evidence.backpressure).toEqual([]);
    expect(evidence.committer).toBeDefined();
  });

  it("refuses a job id that is not 32 hex characters without calling Flink", async () => {
    const before = sim.lakehouse.requests.length;
    expect((await codedFailure(client().getJobEvidence("../overview", TABLE))).code).toBe(
      ErrorCode.UsageInvalid,
    );
    expect(sim.lakehouse.requests.length).toBe(before);
  });

  it("reports an unknown job as HTTP 404 with Flink's message", async () => {
    const error = await codedFailure(client().getJobEvidence("0".repeat(32), TABLE));
    expect(error.code).toBe(ErrorCode.SourceHttpStatus);
    expect(error.details?.status).toBe(404);
    expect(error.message).toContain("not found");
  });

  const faults: [FaultKind, ErrorCode, Record<string, unknown>][] = [
    ["latency", ErrorCode.SourceTimeout, { ms: TIMEOUT_MS + 1500 }],
    ["status", ErrorCode.SourceHttpStatus, { status: 500 }],
    ["hang", ErrorCode.SourceTimeout, {}],
    ["reset", ErrorCode.SourceUnreachable, {}],
    ["truncate", ErrorCode.SourceMalformed, {}],
    ["non-json", ErrorCode.SourceMalformed, {}],
  ];
  it.each(faults)(
    "turns a %s fault on /jobs/overview into %s within the timeout",
    async (kind, code, extra) => {
      sim.lakehouse.faults.inject({ service: "flink", path: "/jobs/overview", kind, times: 1, ...extra });
      const error = await codedFailure(client().listJobs());
      expect(error.code).toBe(code);
      // A timeout comes from the client's own deadline (said by the error, not timed).
      if (code === ErrorCode.SourceTimeout) expect(error.details?.timeoutMs).toBe(TIMEOUT_MS);
    },
  );

  it.each(faults)("turns a %s fault on the exceptions endpoint into %s", async (kind, code, extra) => {
    sim.lakehouse.faults.inject({
      service: "flink",
      path: `/jobs/${JOB}/exceptions`,
      kind,
      times: 1,
      ...extra,
    });
    expect((await codedFailure(client().getJobEvidence(JOB, TABLE))).code).toBe(code);
  });
});

describe("flink client with an IcebergSink (SinkV2) committer", () => {
  let v2: Lakehouse;
  beforeAll(async () => {
    const scenario = loadScenario("competing-appends");
    const job = scenario.flink?.jobs[0];
    if (job?.committer) job.committer.sink = "iceberg-sink-v2";
    v2 = await startLakehouse({ scenario });
  });
  afterAll(async () => v2.close());

  it("finds the metrics under the '<table>: Committer' operator name", async () => {
    const evidence = await client(v2.urls.flink).getJobEvidence(JOB, TABLE);
    expect(evidence.committer?.operatorName).toBe("iceberg_db_events__Committer");
    expect(evidence.committer?.lastCommitDurationMs).toBe(860);
  });
});
