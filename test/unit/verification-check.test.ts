import { describe, expect, it } from "vitest";
import type { Evidence, Snapshot, SourceStatus } from "../../src/core/evidence/model.js";
import { committedBy, evaluateRecovery, identifyWriter } from "../../src/core/verification/check.js";

const JOB = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
const OTHER_JOB = "0000000000000000000000000000beef";
const CHANGE = Date.UTC(2026, 10, 29, 9, 12, 0);
const MIN = 60_000;

const ok: SourceStatus = { status: "ok" };
const snap = (id: string, atMs: number, summary: Record<string, string>, operation = "append"): Snapshot => ({
  snapshotId: id,
  timestampMs: atMs,
  operation,
  summary,
});

function evidence(parts: {
  snapshots?: Snapshot[];
  elapsed?: number;
  intervalMs?: number;
  connector?: { state: string; tasks: string[] };
  catalog?: false;
}): Evidence {
  return {
    table: { namespace: ["db"], name: "events" },
    collectedAtMs: CHANGE + 30 * MIN,
    sources: {
      catalog: parts.catalog === false ? { status: "unavailable", error: "timed out after 5 s" } : ok,
      flink: ok,
      connect: parts.connector ? ok : { status: "not-configured" },
      prometheus: { status: "not-configured" },
    },
    catalog:
      parts.catalog === false
        ? undefined
        : {
            ref: { namespace: ["db"], name: "events" },
            uuid: "u",
            formatVersion: 2,
            location: "s3://lake/db/events",
            lastUpdatedMs: CHANGE,
            snapshots: parts.snapshots ?? [],
            snapshotLog: [],
            metadataLog: [],
            refs: {},
            properties: {},
            currentSchemaId: 0,
            schemas: [],
            partitionFieldCount: 0,
            partitionFields: [],
            sortOrderFieldCount: 0,
          },
    flink:
      parts.elapsed === undefined
        ? undefined
        : {
            jobs: [],
            writer: {
              job: { jobId: JOB, name: "events-writer", state: "RUNNING", startTimeMs: 0 },
              vertices: [],
              exceptions: [],
              backpressure: [],
              checkpointConfig: { intervalMs: parts.intervalMs ?? 5 * MIN },
              committer: {
                vertexId: "v",
                operatorName: "IcebergFilesCommitter",
                metricTable: "iceberg_db_events",
                elapsedSecondsSinceLastSuccessfulCommit: parts.elapsed,
              },
            },
          },
    connect: parts.connector
      ? {
          config: {},
          connector: {
            name: "events-sink",
            type: "sink",
            state: parts.connector.state,
            workerId: "w",
            tasks: parts.connector.tasks.map((state, id) => ({ id, state, workerId: "w" })),
          },
        }
      : undefined,
  };
}

const flink = { kind: "flink", jobId: JOB } as const;
const connect = { kind: "connect", connector: "events-sink" } as const;

describe("evaluateRecovery", () => {
  const cases: {
    name: string;
    baseline: Parameters<typeof evaluateRecovery>[0];
    evidence: Evidence;
    recovered: boolean;
    detail: RegExp;
  }[] = [
    {
      name: "the same Flink job commits after the change and its commit age is normal",
      baseline: { changeAtMs: CHANGE, writer: flink },
      evidence: evidence({
        snapshots: [snap("7001", CHANGE + 5 * MIN, { "flink.job-id": JOB })],
        elapsed: 120,
      }),
      recovered: true,
      detail:
        /snapshot 7001 from job 4f2a9c1e… at 09:17 UTC; elapsedSecondsSinceLastSuccessfulCommit 120 s \(normal up to 600 s\)/,
    },
    {
      name: "a snapshot from another job does not count",
      baseline: { changeAtMs: CHANGE, writer: flink },
      evidence: evidence({
        snapshots: [snap("7002", CHANGE + 5 * MIN, { "flink.job-id": OTHER_JOB })],
        elapsed: 120,
      }),
      recovered: false,
      detail: /no new snapshot from job 4f2a9c1e… since the change at 09:12 UTC/,
    },
    {
      name: "a snapshot from before the change does not count",
      baseline: { changeAtMs: CHANGE, writer: flink },
      evidence: evidence({ snapshots: [snap("6999", CHANGE - MIN, { "flink.job-id": JOB })], elapsed: 60 }),
      recovered: false,
      detail: /no new snapshot/,
    },
    {
      name: "commit age still above twice the interval",
      baseline: { changeAtMs: CHANGE, writer: flink },
      evidence: evidence({ snapshots: [snap("7003", CHANGE + MIN, { "flink.job-id": JOB })], elapsed: 3420 }),
      recovered: false,
      detail: /elapsedSecondsSinceLastSuccessfulCommit 3,420 s \(normal up to 600 s\)/,
    },
    {
      name: "an explicit commit interval wins over the checkpoint interval",
      baseline: { changeAtMs: CHANGE, writer: flink, commitIntervalMs: 30 * MIN },
      evidence: evidence({ snapshots: [snap("7004", CHANGE + MIN, { "flink.job-id": JOB })], elapsed: 3420 }),
      recovered: true,
      detail: /normal up to 3,600 s/,
    },
    {
      name: "a Connect sink recovers when its snapshots resume and every task runs",
      baseline: { changeAtMs: CHANGE, writer: connect },
      evidence: evidence({
        snapshots: [snap("8001", CHANGE + 6 * MIN, { "kafka.connect.task-id": "events-sink-0" })],
        connector: { state: "RUNNING", tasks: ["RUNNING", "RUNNING"] },
      }),
      recovered: true,
      detail: /connector events-sink RUNNING, 2 of 2 tasks RUNNING/,
    },
    {
      name: "a Connect sink with a failed task has not recovered",
      baseline: { changeAtMs: CHANGE, writer: connect },
      evidence: evidence({
        snapshots: [snap("8002", CHANGE + 6 * MIN, { "kafka.connect.task-id": "events-sink-0" })],
        connector: { state: "RUNNING", tasks: ["RUNNING", "FAILED"] },
      }),
      recovered: false,
      detail: /1 of 2 tasks RUNNING/,
    },
    {
      name: "another connector's snapshots do not count",
      baseline: { changeAtMs: CHANGE, writer: connect, signals: ["writer-snapshots-resume"] },
      evidence: evidence({
        snapshots: [snap("8003", CHANGE + MIN, { "kafka.connect.task-id": "events-sink-v2-0" })],
      }),
      recovered: false,
      detail: /no new snapshot from connector events-sink/,
    },
    {
      name: "an unreadable catalog is never taken as recovery",
      baseline: { changeAtMs: CHANGE, writer: flink },
      evidence: evidence({ catalog: false, elapsed: 30 }),
      recovered: false,
      detail: /cannot see the table's snapshots \(catalog: timed out after 5 s\)/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = evaluateRecovery(c.baseline, c.evidence, CHANGE + 30 * MIN);
      expect(result.recovered).toBe(c.recovered);
      expect(result.detail).toMatch(c.detail);
    });
  }

  it("reports the first new snapshot and the commit age", () => {
    const result = evaluateRecovery(
      { changeAtMs: CHANGE, writer: flink },
      evidence({
        snapshots: [
          snap("6990", CHANGE - MIN, { "flink.job-id": JOB }),
          snap("7010", CHANGE + 4 * MIN, { "flink.job-id": JOB }),
          snap("7011", CHANGE + 9 * MIN, { "flink.job-id": JOB }),
        ],
        elapsed: 45,
      }),
      CHANGE + 10 * MIN,
    );
    expect(result.firstNewSnapshot).toEqual({ id: "7010", timestampMs: CHANGE + 4 * MIN });
    expect(result.elapsedSeconds).toBe(45);
  });

  it("identifies the writer from the evidence, Flink first", () => {
    expect(identifyWriter(evidence({ elapsed: 1 }))).toEqual(flink);
    expect(identifyWriter(evidence({ connector: { state: "RUNNING", tasks: [] } }))).toEqual(connect);
    expect(identifyWriter(evidence({}))).toEqual({ kind: "unknown" });
  });

  it("without a writer identity only counts data commits, not compaction", () => {
    const unknown = { kind: "unknown" } as const;
    expect(committedBy(snap("1", 0, {}, "replace"), unknown)).toBe(false);
    expect(committedBy(snap("2", 0, {}, "append"), unknown)).toBe(true);
  });
});

describe("recovery of the writer the diagnosis named as failing", () => {
  const FAILING = "d0d3a1b2c3d4e5f60718293a4b5c6d7e";
  const SUCCESSOR = "5eed0000000000000000000000000001";
  const OPERATOR = "0p0p0p0p0p0p0p0p0p0p0p0p0p0p0p0p";
  const failing = {
    kind: "flink",
    jobId: FAILING,
    name: "orders-ingest",
    operatorId: OPERATOR,
    failedAtMs: CHANGE - 20 * MIN,
  } as const;

  /** The table's Flink side: a healthy twin read as the primary writer, plus the other jobs given. */
  function withJobs(
    base: Evidence,
    jobs: { jobId: string; state: string; startTimeMs: number; elapsed?: number }[],
  ): Evidence {
    const read = jobs.map((j) => ({
      job: { jobId: j.jobId, name: "orders-ingest", state: j.state, startTimeMs: j.startTimeMs },
      vertices: [],
      exceptions: [],
      backpressure: [],
      checkpointConfig: { intervalMs: 5 * MIN },
      ...(j.elapsed === undefined
        ? {}
        : {
            committer: {
              vertexId: "v",
              operatorName: "IcebergFilesCommitter",
              metricTable: "iceberg_db_events",
              elapsedSecondsSinceLastSuccessfulCommit: j.elapsed,
            },
          }),
    }));
    const twin = base.flink!.writer!;
    return {
      ...base,
      flink: { jobs: [twin.job, ...read.map((r) => r.job)], writer: twin, writers: [twin, ...read] },
    };
  }

  it("a healthy twin of the same name committing is not the failing job's recovery", () => {
    const ev = withJobs(
      evidence({ snapshots: [snap("9001", CHANGE + 5 * MIN, { "flink.job-id": JOB })], elapsed: 60 }),
      [{ jobId: FAILING, state: "RUNNING", startTimeMs: 0, elapsed: 4_000 }],
    );
    const result = evaluateRecovery({ changeAtMs: CHANGE, writer: failing }, ev, CHANGE + 10 * MIN);
    expect(result.recovered).toBe(false);
    expect(result.detail).toMatch(/no new snapshot from orders-ingest \(d0d3…\)/);
    // The commit age read is the failing job's, not the twin's.
    expect(result.elapsedSeconds).toBe(4_000);
  });

  it("the failing job's own commit after the change is its recovery", () => {
    const ev = withJobs(
      evidence({
        snapshots: [
          snap("9001", CHANGE + 2 * MIN, { "flink.job-id": JOB }),
          snap("9002", CHANGE + 5 * MIN, { "flink.job-id": FAILING, "flink.operator-id": OPERATOR }),
        ],
        elapsed: 60,
      }),
      [{ jobId: FAILING, state: "RUNNING", startTimeMs: 0, elapsed: 30 }],
    );
    const result = evaluateRecovery({ changeAtMs: CHANGE, writer: failing }, ev, CHANGE + 10 * MIN);
    expect(result.recovered).toBe(true);
    expect(result.firstNewSnapshot?.id).toBe("9002");
    expect(result.detail).toMatch(/snapshot 9002 from orders-ingest \(d0d3…\)/);
  });

  it("a successor that replaced the failing job (same name and operator, started after) counts", () => {
    const ev = withJobs(
      evidence({
        snapshots: [
          snap("9003", CHANGE + 5 * MIN, { "flink.job-id": SUCCESSOR, "flink.operator-id": OPERATOR }),
        ],
        elapsed: 60,
      }),
      [
        { jobId: FAILING, state: "CANCELED", startTimeMs: 0 },
        { jobId: SUCCESSOR, state: "RUNNING", startTimeMs: CHANGE + MIN, elapsed: 20 },
      ],
    );
    const result = evaluateRecovery({ changeAtMs: CHANGE, writer: failing }, ev, CHANGE + 10 * MIN);
    expect(result.recovered).toBe(true);
    expect(result.firstNewSnapshot?.id).toBe("9003");
    expect(result.elapsedSeconds).toBe(20);
  });

  it("no successor while the failing job still runs, with another operator, or started before the failure", () => {
    const snapshot = (operator: string) => [
      snap("9004", CHANGE + 5 * MIN, { "flink.job-id": SUCCESSOR, "flink.operator-id": operator }),
    ];
    const cases: { failingState: string; started: number; operator: string }[] = [
      { failingState: "RUNNING", started: CHANGE + MIN, operator: OPERATOR },
      { failingState: "CANCELED", started: CHANGE + MIN, operator: "another-operator" },
      { failingState: "CANCELED", started: CHANGE - 30 * MIN, operator: OPERATOR },
    ];
    for (const c of cases) {
      const ev = withJobs(evidence({ snapshots: snapshot(c.operator), elapsed: 60 }), [
        { jobId: FAILING, state: c.failingState, startTimeMs: 0 },
        { jobId: SUCCESSOR, state: "RUNNING", startTimeMs: c.started },
      ]);
      const result = evaluateRecovery(
        { changeAtMs: CHANGE, writer: failing, signals: ["writer-snapshots-resume"] },
        ev,
        CHANGE + 10 * MIN,
      );
      expect(result.recovered, JSON.stringify(c)).toBe(false);
    }
  });

  it("a backfill or a compaction is never a recovery", () => {
    const unknown = { kind: "unknown" } as const;
    expect(committedBy(snap("1", 0, { "spark.app.id": "application_1_0001" }, "append"), unknown)).toBe(
      false,
    );
    expect(committedBy(snap("2", 0, { "flink.job-id": FAILING }, "replace"), failing)).toBe(false);
  });
});
