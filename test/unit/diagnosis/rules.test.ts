// One table-driven test per rule: each fires on its own case with evidence and stays silent on
// the healthy baselines (a Flink writer, a Connect writer, a quiet batch table).

import { describe, expect, it } from "vitest";
import { buildContext } from "../../../src/core/diagnosis/context.js";
import { RULES, runRules } from "../../../src/core/diagnosis/registry.js";
import type { Evidence } from "../../../src/core/evidence/model.js";
import { FINDING_IDS, type FindingId } from "../../../src/core/ids.js";
import { FindingSchema } from "../../../src/core/report/schema.js";
import {
  BASE_LOCATION_MESSAGE,
  COMMIT_FAILED,
  CONNECT_TERMINATED_TRACE,
  CONNECTOR,
  connect,
  DAY,
  evidence,
  flinkJob,
  HEALTHY_BASELINES,
  HOUR,
  JOB,
  JOB2,
  MIN,
  NOW,
  SEC,
  SPARK_APP,
  STATE_UNKNOWN,
  series,
  snap,
  table,
  UNKNOWN_MESSAGE,
  VALIDATION,
  VALIDATION_MESSAGE,
} from "../../support/evidence-builders.js";

/** The finding of rule `id`, as runRules returns it (with the rule's id), or null. */
const evaluate = (id: FindingId, ev: Evidence) =>
  runRules(buildContext(ev, NOW)).find((f) => f.id === id) ?? null;

/** The Flink writer committed every 5 min until 55 min ago, then nothing. */
const stalledWriter = () => series(6 * HOUR, 55 * MIN, 5 * MIN);
const conflictAt = (ago: number) => [{ ago, name: COMMIT_FAILED, message: BASE_LOCATION_MESSAGE }];

interface Case {
  name: string;
  id: FindingId;
  evidence: () => Evidence;
  /** Text the finding's evidence must mention. */
  mentions: string;
}

const CASES: Case[] = [
  {
    name: "unknown commit state, nothing landed after it",
    id: "commit-state-unknown",
    evidence: () =>
      evidence({
        table: table({ snapshots: stalledWriter() }),
        flink: flinkJob({ exceptions: [{ ago: 40 * MIN, name: STATE_UNKNOWN, message: UNKNOWN_MESSAGE }] }),
      }),
    mentions: "The in-flight commit did not land: no snapshot from Flink job",
  },
  {
    name: "coordinator ended after one failed commit",
    id: "connect-coordinator-stopped",
    evidence: () =>
      evidence({
        table: table({ snapshots: series(6 * HOUR, 50 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }) }),
        connect: connect({ taskState: "FAILED", trace: CONNECT_TERMINATED_TRACE, sinkVersion: "1.12.0" }),
      }),
    mentions: "Coordinator unexpectedly terminated",
  },
  {
    name: "checkpoints failing, no commit attempted",
    id: "commit-not-attempted",
    evidence: () =>
      evidence({
        table: table({ snapshots: stalledWriter() }),
        flink: flinkJob({ latestCompletedAgo: 56 * MIN, latestFailedAgo: 2 * MIN, backpressure: "high" }),
      }),
    mentions: "Checkpoint expired before completing",
  },
  {
    name: "checkpoints complete, commits stopped (Flink)",
    id: "commit-failing",
    evidence: () =>
      evidence({ table: table({ snapshots: stalledWriter() }), flink: flinkJob({ elapsedSeconds: 3300 }) }),
    mentions: "elapsedSecondsSinceLastSuccessfulCommit = 3,300 s",
  },
  {
    name: "sink 1.11.0 stays RUNNING with stale commits (Connect)",
    id: "commit-failing",
    evidence: () =>
      evidence({
        table: table({ snapshots: series(6 * HOUR, 50 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }) }),
        connect: connect({ sinkVersion: "1.11.0" }),
      }),
    mentions: "RUNNING",
  },
  {
    name: "CommitFailedException after the last good commit",
    id: "commit-conflict",
    evidence: () =>
      evidence({
        table: table({ snapshots: stalledWriter() }),
        flink: flinkJob({ exceptions: conflictAt(10 * MIN) }),
      }),
    mentions: "Base metadata location",
  },
  {
    name: "ValidationException on a row-level commit",
    id: "validation-conflict",
    evidence: () =>
      evidence({
        table: table({ snapshots: stalledWriter() }),
        flink: flinkJob({ exceptions: [{ ago: 8 * MIN, name: VALIDATION, message: VALIDATION_MESSAGE }] }),
      }),
    mentions: "Found conflicting files",
  },
  {
    name: "compaction replaced files in the window",
    id: "rewrite-in-window",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...stalledWriter(),
            snap(50 * MIN, { op: "replace", by: { spark: SPARK_APP } }),
            snap(30 * MIN, { op: "replace", by: { spark: SPARK_APP } }),
          ],
        }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: SPARK_APP,
  },
  {
    name: "Spark MERGE overwrote in the window",
    id: "row-level-in-window",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [...stalledWriter(), snap(40 * MIN, { op: "overwrite", by: { spark: SPARK_APP } })],
        }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: "overwrite",
  },
  {
    name: "two Flink jobs interleave",
    id: "multiple-flink-jobs",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...stalledWriter(),
            ...series(3 * HOUR + 2 * MIN, 7 * MIN, 5 * MIN, { by: { flink: JOB2 } }),
          ],
        }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: JOB2,
  },
  {
    name: "a Spark app appends beside the stalled Flink writer",
    id: "multiple-writers",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...stalledWriter(),
            ...series(3 * HOUR + 2 * MIN, 7 * MIN, 20 * MIN, { by: { spark: SPARK_APP } }),
          ],
        }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: SPARK_APP,
  },
  {
    name: "anonymous commits in the window",
    id: "unattributed-commits",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...stalledWriter(),
            snap(45 * MIN, { by: { anonymous: true } }),
            snap(20 * MIN, { by: { anonymous: true } }),
          ],
        }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: "Snapshots without a writer identity",
  },
  {
    name: "bursts of Spark appends",
    id: "competing-appends",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [...stalledWriter(), ...series(54 * MIN, 50 * MIN, MIN, { by: { spark: SPARK_APP } })],
        }),
        flink: flinkJob({ exceptions: conflictAt(48 * MIN) }),
      }),
    mentions: SPARK_APP,
  },
  {
    name: "last-updated-ms moved without data",
    id: "metadata-only-change",
    evidence: () =>
      evidence({ table: table({ snapshots: stalledWriter(), lastUpdatedAgo: 5 * MIN }), flink: flinkJob() }),
    mentions: "last-updated-ms",
  },
  {
    name: "schema changed three times around the failure",
    id: "schema-churn",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...series(6 * HOUR, 70 * MIN, 5 * MIN, { schemaId: 0 }),
            snap(65 * MIN, { schemaId: 1 }),
            snap(60 * MIN, { schemaId: 2 }),
            snap(55 * MIN, { schemaId: 3 }),
          ],
          currentSchemaId: 3,
        }),
        flink: flinkJob(),
      }),
    mentions: "schema 2 → 3",
  },
  {
    name: "writer commits to a branch",
    id: "branch-commits",
    evidence: () =>
      evidence({
        table: table({ snapshots: series(DAY, 6 * HOUR + 30 * MIN, 5 * MIN, { by: { flink: JOB2 } }) }),
        connect: connect({ config: { "iceberg.table.db.events.commit-branch": "audit_branch" } }),
      }),
    mentions: "commit-branch = audit_branch",
  },
  {
    name: "commit duration climbing",
    id: "commit-duration-growing",
    evidence: () =>
      evidence({
        table: table({ snapshots: series(HOUR, 2 * MIN, 5 * MIN) }),
        flink: flinkJob({ durations: [800, 1500, 4000, 9000, 21000] }),
      }),
    mentions: "800 → 1500 → 4000 → 9000 → 21000",
  },
  {
    name: "hundreds of files per commit",
    id: "many-files-per-commit",
    evidence: () =>
      evidence({
        table: table({
          snapshots: series(HOUR, 2 * MIN, 5 * MIN, { files: 240, bytes: 240 * 3 * 1024 * 1024 }),
        }),
        flink: flinkJob(),
      }),
    mentions: "240 data files per commit",
  },
  {
    name: "checkpoint every 30 s",
    id: "frequent-commits",
    evidence: () =>
      evidence({
        table: table({ snapshots: series(HOUR, 30 * SEC, 30 * SEC) }),
        flink: flinkJob({ intervalMs: 30 * SEC }),
      }),
    mentions: "Checkpoint interval 30,000 ms",
  },
  {
    name: "1,440+ writer snapshots a day (no Flink REST)",
    id: "frequent-commits",
    evidence: () => evidence({ table: table({ snapshots: series(DAY, MIN, 50 * SEC) }) }),
    mentions: "snapshots from Flink job",
  },
  {
    name: "default retries while Spark appends",
    id: "default-retry-budget",
    evidence: () =>
      evidence({
        table: table({ snapshots: [...stalledWriter(), snap(40 * MIN, { by: { spark: SPARK_APP } })] }),
        flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      }),
    mentions: "commit.retry.num-retries = 4 (default)",
  },
  {
    name: "expiry age shorter than the stall",
    id: "writer-last-snapshot-at-risk",
    evidence: () =>
      evidence({
        table: table({
          snapshots: [
            ...stalledWriter(),
            ...series(50 * MIN, 10 * MIN, 10 * MIN, { op: "replace", by: { spark: SPARK_APP } }),
          ],
          properties: { "history.expire.max-snapshot-age-ms": "3600000" },
        }),
        flink: flinkJob(),
      }),
    mentions: "history.expire.max-snapshot-age-ms = 3600000",
  },
  {
    // RUNBOOK §4 step 8: only with evidence of expiry, here the oldest snapshot's parent is gone.
    name: "expiry already removed every snapshot of the running job",
    id: "writer-last-snapshot-at-risk",
    evidence: () => {
      const snapshots = series(DAY, HOUR, HOUR, { by: { spark: SPARK_APP } });
      snapshots[0] = { ...snapshots[0]!, parentSnapshotId: "6999999999999999999" };
      return evidence({ table: table({ snapshots }), flink: flinkJob({ startedAgo: 3 * DAY }) });
    },
    mentions: `none carries flink.job-id ${JOB}`,
  },
];

describe("diagnosis rules", () => {
  it("has exactly one rule per finding id", () => {
    expect(RULES.map((r) => r.id).sort()).toEqual([...FINDING_IDS].sort());
  });

  it.each(CASES)("$id fires: $name", ({ id, evidence: build, mentions }) => {
    const found = evaluate(id, build());
    expect(found).not.toBeNull();
    expect(FindingSchema.parse(found).id).toBe(id);
    expect(found!.evidence.length).toBeGreaterThan(0);
    expect(JSON.stringify(found)).toContain(mentions);
  });

  const silentIds = FINDING_IDS.filter((id) => id !== "healthy");
  describe.each(HEALTHY_BASELINES)("on a %s", (_name, build) => {
    it.each(silentIds)("%s stays silent", (id) => {
      expect(evaluate(id, build())).toBeNull();
    });
    it("healthy fires with evidence", () => {
      const found = evaluate("healthy", build());
      expect(found?.severity).toBe("info");
      expect(found!.evidence.length).toBeGreaterThan(0);
    });
  });
});

describe("rule details", () => {
  it("commit-state-unknown says when the writer's snapshot landed after the failure", () => {
    const ev = evidence({
      table: table({ snapshots: [...stalledWriter(), snap(39 * MIN)] }),
      flink: flinkJob({ exceptions: [{ ago: 40 * MIN, name: STATE_UNKNOWN, message: UNKNOWN_MESSAGE }] }),
    });
    const found = evaluate("commit-state-unknown", ev)!;
    const landing = found.evidence.find((e) => "landedAfterFailure" in e.data)!;
    expect(landing.data.landedAfterFailure).toBe(true);
    expect(landing.data.committedAt).toBe(new Date(NOW - 39 * MIN).toISOString());
    expect(found.summary).toContain("do not replay");
  });

  it("commit-state-unknown reports no landing when none came after", () => {
    const found = evaluate("commit-state-unknown", CASES[0]!.evidence())!;
    expect(found.evidence.find((e) => "landedAfterFailure" in e.data)!.data.landedAfterFailure).toBe(false);
  });

  it("connect-coordinator-stopped stays silent when the failure tolerance is above 1", () => {
    const ev = evidence({
      table: table({ snapshots: series(6 * HOUR, 50 * MIN, 5 * MIN, { by: { connect: CONNECTOR } }) }),
      connect: connect({
        taskState: "FAILED",
        trace: CONNECT_TERMINATED_TRACE,
        config: { "iceberg.control.commit.max-consecutive-failures": "3" },
      }),
    });
    expect(evaluate("connect-coordinator-stopped", ev)).toBeNull();
  });

  it("commit-not-attempted fires for a RESTARTING job that raised no commit exception", () => {
    const ev = evidence({
      table: table({ snapshots: stalledWriter() }),
      flink: flinkJob({ state: "RESTARTING" }),
    });
    expect(evaluate("commit-not-attempted", ev)?.summary).toContain("RESTARTING");
  });

  it("a restart loop caused by CommitFailedException is not commit-not-attempted", () => {
    const ev = evidence({
      table: table({ snapshots: stalledWriter() }),
      flink: flinkJob({ state: "RESTARTING", exceptions: conflictAt(3 * MIN) }),
    });
    expect(evaluate("commit-not-attempted", ev)).toBeNull();
    expect(evaluate("commit-conflict", ev)).not.toBeNull();
  });

  it("metadata-only-change separates last-updated-ms from the newest snapshot", () => {
    const found = evaluate(
      "metadata-only-change",
      CASES.find((c) => c.id === "metadata-only-change")!.evidence(),
    )!;
    expect(found.evidence[0]!.data.lastUpdatedAt).toBe(new Date(NOW - 5 * MIN).toISOString());
    expect(found.evidence[0]!.data.newestSnapshotAt).toBe(new Date(NOW - 55 * MIN).toISOString());
    expect(found.evidence[0]!.data.gapSeconds).toBe(50 * 60);
  });

  it("a handed-over job (new job id after a redeploy) is not multiple-flink-jobs", () => {
    const ev = evidence({
      table: table({
        snapshots: [
          ...series(6 * HOUR, 3 * HOUR, 5 * MIN, { by: { flink: JOB2 } }),
          ...series(3 * HOUR - 4 * MIN, 2 * MIN, 5 * MIN),
        ],
      }),
      flink: flinkJob(),
    });
    expect(evaluate("multiple-flink-jobs", ev)).toBeNull();
  });

  it("an old CommitFailedException followed by good commits does not fire", () => {
    const ev = evidence({
      table: table({ snapshots: series(6 * HOUR, 2 * MIN, 5 * MIN) }),
      flink: flinkJob({ exceptions: conflictAt(2 * HOUR) }),
    });
    expect(evaluate("commit-conflict", ev)).toBeNull();
    expect(evaluate("healthy", ev)).not.toBeNull();
  });

  it("rules reading an unavailable source stay silent", () => {
    const ev = evidence({
      table: table({ snapshots: stalledWriter() }),
      flink: flinkJob({ exceptions: conflictAt(5 * MIN) }),
      unavailable: ["flink"],
    });
    for (const id of [
      "commit-conflict",
      "commit-not-attempted",
      "commit-failing",
      "healthy",
      "frequent-commits",
    ] as const) {
      expect(evaluate(id, ev), id).toBeNull();
    }
  });

  it("a freshly started job gets one stale period to make its first commit", () => {
    const ev = evidence({
      table: table({ snapshots: series(6 * HOUR, 3 * HOUR, 5 * MIN, { by: { flink: JOB2 } }) }),
      flink: flinkJob({ startedAgo: 4 * MIN }),
    });
    expect(evaluate("commit-failing", ev)).toBeNull();
    expect(evaluate("writer-last-snapshot-at-risk", ev)).toBeNull();
  });

  it("writer-last-snapshot-at-risk: a settings risk is a warning; a restore failure is critical", () => {
    const risky = evidence({
      table: table({
        snapshots: [
          ...stalledWriter(),
          ...series(50 * MIN, 10 * MIN, 10 * MIN, { op: "replace", by: { spark: SPARK_APP } }),
        ],
        properties: { "history.expire.max-snapshot-age-ms": "3600000" },
      }),
      flink: flinkJob(),
    });
    expect(evaluate("writer-last-snapshot-at-risk", risky)?.severity).toBe("warning");

    const notFound = evidence({
      table: table({ snapshots: stalledWriter() }),
      flink: flinkJob({
        state: "RESTARTING",
        exceptions: [
          {
            ago: 2 * MIN,
            name: "org.apache.iceberg.exceptions.NotFoundException",
            message:
              "Failed to open input stream for file: s3://lake/warehouse/db/events/metadata/snap-1-1-a.avro",
          },
        ],
      }),
    });
    const found = evaluate("writer-last-snapshot-at-risk", notFound);
    expect(found?.severity).toBe("critical");
    expect(JSON.stringify(found)).toContain("NotFoundException: Failed to open input stream");
  });

  it("writer-last-snapshot-at-risk: the writer's newest snapshot lost its parent to expiry", () => {
    const snapshots = stalledWriter();
    snapshots[0] = { ...snapshots[0]!, parentSnapshotId: "1234" };
    const ev = evidence({
      table: table({ snapshots: [snapshots[snapshots.length - 1]!] }),
      flink: flinkJob(),
    });
    ev.catalog!.snapshots[0]!.parentSnapshotId = "1234";
    const found = evaluate("writer-last-snapshot-at-risk", ev);
    expect(found?.severity).toBe("critical");
    expect(JSON.stringify(found)).toContain("its parent 1234 was expired");
  });

  it("writer-last-snapshot-at-risk: restored from a checkpoint the table's commits do not reach", () => {
    const ev = evidence({ table: table({ snapshots: stalledWriter() }), flink: flinkJob() });
    const newest = ev.catalog!.snapshots[ev.catalog!.snapshots.length - 1]!;
    const committed = Number(newest.summary["flink.max-committed-checkpoint-id"]);
    ev.flink!.writer!.checkpoints!.latestRestored = { id: committed + 1 };
    expect(evaluate("writer-last-snapshot-at-risk", ev)?.severity ?? "none").not.toBe("critical");
    ev.flink!.writer!.checkpoints!.latestRestored = { id: committed + 12 };
    const found = evaluate("writer-last-snapshot-at-risk", ev);
    expect(found?.severity).toBe("critical");
    expect(JSON.stringify(found)).toContain(`Job restored from checkpoint ${committed + 12}`);
  });

  it("schema-churn counts changes after the writer's last commit and a schema-change exception", () => {
    const ev = evidence({
      table: table({
        snapshots: stalledWriter().map((s) => ({ ...s, schemaId: 2 })),
        currentSchemaId: 3,
        lastUpdatedAgo: 20 * MIN,
      }),
      flink: flinkJob({
        exceptions: [
          {
            ago: 5 * MIN,
            name: COMMIT_FAILED,
            message: "Commit failed: Requirement failed: current schema changed: expected id 2 != 3",
          },
        ],
      }),
    });
    ev.catalog!.schemas.push(
      { schemaId: 1, fieldCount: 7 },
      { schemaId: 2, fieldCount: 8 },
      { schemaId: 3, fieldCount: 9 },
    );
    const found = evaluate("schema-churn", ev);
    expect(JSON.stringify(found)).toContain(
      "current-schema-id is 3 but the writer's last data commit used schema 2",
    );
    expect(JSON.stringify(found)).toContain("The commit failed on a schema change");
  });

  it("many-files-per-commit: small files count on their own, below the file-count threshold", () => {
    const ev = evidence({
      table: table({
        snapshots: series(3 * HOUR, 2 * MIN, 5 * MIN, { files: 4, bytes: 4 * 2 * 1024 * 1024 }),
      }),
      flink: flinkJob(),
    });
    expect(JSON.stringify(evaluate("many-files-per-commit", ev))).toContain("average file size 2.0 MiB");
  });

  it("multiple-flink-jobs: a second live job whose sink names the table counts before it commits", () => {
    const ev = evidence({
      table: table({ snapshots: series(3 * HOUR, 2 * MIN, 5 * MIN) }),
      flink: flinkJob(),
    });
    const second = flinkJob({ jobId: JOB2 });
    second.job.name = "events-backfill";
    ev.flink!.writers = [ev.flink!.writer!, second];
    const found = evaluate("multiple-flink-jobs", ev);
    expect(found?.evidence.map((e) => e.data.jobId)).toEqual([JOB, JOB2]);
    expect(found?.summary).toContain("events-backfill (9b1d…)");
  });
});
