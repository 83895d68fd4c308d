// The report invariants (core/diagnosis/invariants.ts) over generated evidence: random snapshot
// histories from several committers, exception lists, checkpoint states, Connect traces and
// sources that did or did not answer. Every generated report must hold every invariant.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import { reportViolations } from "../../../src/core/diagnosis/invariants.js";
import type {
  ConnectEvidence,
  Evidence,
  FlinkJobEvidence,
  Snapshot,
  SourceStatus,
} from "../../../src/core/evidence/model.js";
import { ReportSchema } from "../../../src/core/report/schema.js";
import {
  BASE_LOCATION_MESSAGE,
  COMMIT_FAILED,
  CONNECT_TERMINATED_TRACE,
  CONNECTOR,
  connect,
  exception,
  flinkJob,
  JOB,
  JOB2,
  MIN,
  NOW,
  SPARK_APP,
  STATE_UNKNOWN,
  table,
  UNKNOWN_MESSAGE,
  VALIDATION,
  VALIDATION_MESSAGE,
} from "../../support/evidence-builders.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

/** Generated cases; the Done-when of the invariants asks for at least 10,000. */
const RUNS = 10_000;

const committer = fc.constantFrom<Record<string, string>>(
  { "flink.job-id": JOB },
  { "flink.job-id": JOB2 },
  { "spark.app.id": SPARK_APP },
  { "kafka.connect.task-id": `${CONNECTOR}-0`, "kafka.connect.commit-id": "c-1" },
  {},
);

const snapshotArb = fc.record({
  ago: fc.integer({ min: 0, max: 12 * 60 }),
  op: fc.constantFrom("append", "append", "append", "replace", "overwrite", "delete"),
  who: committer,
  files: fc.integer({ min: 1, max: 400 }),
  mib: fc.integer({ min: 1, max: 128 }),
  schemaId: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  checkpoint: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
});

type GeneratedSnapshot = typeof snapshotArb extends fc.Arbitrary<infer T> ? T : never;

function toSnapshots(list: GeneratedSnapshot[]): Snapshot[] {
  return list.map((s, i) => ({
    snapshotId: String(5_000_000_000_000_000_000n + BigInt(i)),
    timestampMs: NOW - s.ago * MIN - i, // distinct times
    operation: s.op,
    summary: {
      operation: s.op,
      "added-data-files": String(s.files),
      "added-files-size": String(s.files * s.mib * 1024 * 1024),
      "added-records": String(s.files * 1000),
      ...s.who,
      ...(s.checkpoint !== undefined && s.who["flink.job-id"]
        ? { "flink.max-committed-checkpoint-id": String(s.checkpoint) }
        : {}),
    },
    ...(s.schemaId !== undefined ? { schemaId: s.schemaId } : {}),
  }));
}

const failureArb = fc.record({
  ago: fc.integer({ min: 0, max: 12 * 60 }),
  kind: fc.constantFrom("conflict", "unknown", "validation", "other", "notfound"),
});

const MESSAGES = {
  conflict: [COMMIT_FAILED, BASE_LOCATION_MESSAGE],
  unknown: [STATE_UNKNOWN, UNKNOWN_MESSAGE],
  validation: [VALIDATION, VALIDATION_MESSAGE],
  other: ["java.lang.RuntimeException", "Kafka source lost its partition assignment"],
  notfound: [
    "org.apache.iceberg.exceptions.NotFoundException",
    "Failed to open input stream for file: s3://lake/warehouse/db/events/metadata/snap-1-1-a.avro",
  ],
} as const;

const jobArb = (jobId: string) =>
  fc
    .record({
      state: fc.constantFrom("RUNNING", "RUNNING", "RESTARTING", "FAILING", "FAILED", "CANCELED"),
      intervalMin: fc.constantFrom(0.05, 1, 5, 10),
      completedAgoMin: fc.integer({ min: 0, max: 300 }),
      failedAgoMin: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
      elapsed: fc.option(fc.integer({ min: 0, max: 40_000 }), { nil: undefined }),
      startedAgoMin: fc.integer({ min: 1, max: 5 * 24 * 60 }),
      failures: fc.array(failureArb, { maxLength: 4 }),
    })
    .map((j): FlinkJobEvidence => {
      const job = flinkJob({
        jobId,
        state: j.state,
        intervalMs: j.intervalMin * MIN,
        latestCompletedAgo: j.completedAgoMin * MIN,
        startedAgo: j.startedAgoMin * MIN,
        ...(j.failedAgoMin !== undefined ? { latestFailedAgo: j.failedAgoMin * MIN } : {}),
        ...(j.elapsed !== undefined ? { elapsedSeconds: j.elapsed } : {}),
      });
      job.exceptions = j.failures
        .map((f) => exception(f.ago * MIN, MESSAGES[f.kind][0], MESSAGES[f.kind][1]))
        .sort((a, b) => b.timestampMs - a.timestampMs);
      return job;
    });

const sourceArb = fc.constantFrom<"ok" | "unavailable" | "absent">("ok", "ok", "ok", "unavailable", "absent");

const connectArb = fc.record({
  state: fc.constantFrom("RUNNING", "FAILED"),
  taskState: fc.constantFrom("RUNNING", "FAILED"),
  trace: fc.boolean(),
  maxFailures: fc.constantFrom(undefined, "1", "5"),
});

const evidenceArb = fc
  .record({
    snapshots: fc.array(snapshotArb, { maxLength: 40 }),
    properties: fc.record(
      {
        "commit.retry.num-retries": fc.constantFrom("2", "4", "10"),
        "history.expire.max-snapshot-age-ms": fc.constantFrom("3600000", "86400000"),
        "history.expire.min-snapshots-to-keep": fc.constantFrom("1", "5", "100"),
      },
      { requiredKeys: [] },
    ),
    currentSchemaId: fc.integer({ min: 0, max: 4 }),
    lastUpdatedAgo: fc.option(fc.integer({ min: 0, max: 600 }), { nil: undefined }),
    jobs: fc
      .array(fc.constantFrom(JOB, JOB2), { maxLength: 2 })
      .chain((ids) => fc.tuple(...[...new Set(ids)].map(jobArb))),
    connect: fc.option(connectArb, { nil: undefined }),
    secondConnector: fc.option(connectArb, { nil: undefined }),
    catalog: sourceArb,
    flink: sourceArb,
    connectSource: sourceArb,
  })
  .map((g): Evidence => {
    const status = (s: "ok" | "unavailable" | "absent"): SourceStatus =>
      s === "ok"
        ? { status: "ok", latencyMs: 5 }
        : s === "unavailable"
          ? { status: "unavailable", error: "503 Service Unavailable" }
          : { status: "not-configured" };
    const jobs = g.jobs as FlinkJobEvidence[];
    const flinkStatus = jobs.length > 0 ? g.flink : "absent";
    const connectStatus = g.connect ? g.connectSource : "absent";
    let connectEvidence: ConnectEvidence | undefined;
    if (g.connect) {
      connectEvidence = connect({
        state: g.connect.state,
        taskState: g.connect.taskState,
        ...(g.connect.trace ? { trace: CONNECT_TERMINATED_TRACE } : {}),
        config: g.connect.maxFailures
          ? { "iceberg.control.commit.max-consecutive-failures": g.connect.maxFailures }
          : {},
      });
    }
    const ev: Evidence = {
      table: { namespace: ["db"], name: "events" },
      collectedAtMs: NOW,
      sources: {
        catalog: status(g.catalog),
        flink: status(flinkStatus),
        connect: status(connectStatus),
        prometheus: { status: "not-configured" },
      },
    };
    if (g.catalog === "ok") {
      ev.catalog = table({
        snapshots: toSnapshots(g.snapshots),
        properties: g.properties as Record<string, string>,
        currentSchemaId: g.currentSchemaId,
        ...(g.lastUpdatedAgo !== undefined ? { lastUpdatedAgo: g.lastUpdatedAgo * MIN } : {}),
      });
    }
    if (flinkStatus === "ok") {
      ev.flink = {
        jobs: jobs.map((j) => j.job),
        writer: jobs[0]!,
        writerSource: "discovered",
        ...(jobs.length > 1 ? { writers: jobs } : {}),
      };
    }
    if (connectStatus === "ok" && connectEvidence) {
      ev.connect = connectEvidence;
      if (g.secondConnector) {
        const c = g.secondConnector;
        const other = connect({
          name: "events-sink-eu",
          state: c.state,
          taskState: c.taskState,
          ...(c.trace ? { trace: CONNECT_TERMINATED_TRACE } : {}),
        });
        ev.connect = { ...connectEvidence, others: [other] };
      }
    }
    return ev;
  });

describe("report invariants over generated evidence", () => {
  // Its own timeout: 10,000 diagnoses take seconds alone and several times that on a busy machine.
  it(`hold for ${RUNS.toLocaleString("en-US")} generated cases`, { timeout: 600_000 }, () => {
    fc.assert(
      fc.property(evidenceArb, (ev) => {
        const report = diagnose(ev, NOW, { playbooks: PLAYBOOKS });
        expect(ReportSchema.safeParse(report).success).toBe(true);
        expect(reportViolations(report, ev)).toEqual([]);
      }),
      { numRuns: RUNS, seed: 20261130 },
    );
  });

  it("the checker catches each broken invariant (it is not vacuous)", () => {
    const ev: Evidence = {
      table: { namespace: ["db"], name: "events" },
      collectedAtMs: NOW,
      sources: {
        catalog: { status: "unavailable", error: "503" },
        flink: { status: "ok" },
        connect: { status: "not-configured" },
        prometheus: { status: "not-configured" },
      },
      flink: {
        jobs: [],
        writer: flinkJob({ exceptions: [{ ago: MIN, name: COMMIT_FAILED, message: BASE_LOCATION_MESSAGE }] }),
      },
    };
    const item = { source: "flink" as const, detail: "same", data: {} };
    const broken = {
      reportVersion: 1 as const,
      table: "db.events",
      generatedAt: new Date(NOW).toISOString(),
      verdict: "healthy" as const,
      findings: [
        { id: "healthy" as const, severity: "info" as const, summary: "fine", evidence: [item] },
        { id: "frequent-commits" as const, severity: "warning" as const, summary: "x", evidence: [item] },
      ],
      nextStep: {
        id: "verify-unknown-commit" as const,
        playbook: "commit-failures",
        summary: "check",
        change: { kind: "manual" as const, checklist: [] },
        automatic: true,
      },
      sources: {
        catalog: { status: "unavailable" as const },
        flink: { status: "ok" as const },
        connect: { status: "not-configured" as const },
        prometheus: { status: "not-configured" as const },
      },
    };
    const problems = reportViolations(broken, ev).join("\n");
    expect(problems).toContain("healthy although the catalog did not answer");
    expect(problems).toContain("healthy although a source shows");
    expect(problems).toContain("fact listed twice");
    expect(problems).toContain("automatic true with a manual change");
    const ahead = {
      ...broken,
      writer: { kind: "flink" as const, id: "j1", failedAt: new Date(NOW + 5 * MIN).toISOString() },
    };
    expect(reportViolations(ahead, ev).join("\n")).toContain("failure time is after the report");
    const silent = { ...broken, verdict: "commit-conflict" as const, findings: [], nextStep: null };
    expect(reportViolations(silent, ev).join("\n")).toContain("neither a step nor a reason");
  });
});
