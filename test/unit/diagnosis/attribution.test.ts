// Who wrote a snapshot: every generation of every writer's keys (core/attribution/keys.ts), ties
// by timing for snapshots without keys, and what diagnosis and the follow-up check make of them.

import { describe, expect, it } from "vitest";
import { committerOf, describeCommitter, isWriterSnapshot } from "../../../src/core/attribution/attribute.js";
import { tieToCommitInterval, tieToFlinkCheckpoints } from "../../../src/core/attribution/timing.js";
import { buildContext } from "../../../src/core/diagnosis/context.js";
import { diagnose } from "../../../src/core/diagnosis/diagnose.js";
import type { Snapshot } from "../../../src/core/evidence/model.js";
import { committedBy } from "../../../src/core/verification/check.js";
import {
  connect,
  DAY,
  evidence,
  flinkJob,
  JOB,
  MIN,
  NOW,
  SEC,
  series,
  snap,
  table,
} from "../../support/evidence-builders.js";
import { PLAYBOOKS } from "../../support/playbooks.js";

const JOB_ID = "4f2a6c1e8a7b4d3c9e0f1a2b3c4d5e6f";
const bare = (summary: Record<string, string>): Snapshot => ({
  snapshotId: "1",
  timestampMs: NOW,
  operation: "append",
  summary: { operation: "append", ...summary },
});

describe("the key table: every writer and version", () => {
  it.each([
    [
      "Flink sink with operator id",
      { "flink.job-id": JOB_ID, "flink.operator-id": "e883", "flink.max-committed-checkpoint-id": "42" },
      { kind: "flink", jobId: JOB_ID, operatorId: "e883", checkpointId: "42" },
    ],
    [
      "Flink sink before the operator id",
      { "flink.job-id": JOB_ID, "flink.max-committed-checkpoint-id": "42" },
      { kind: "flink", jobId: JOB_ID, checkpointId: "42" },
    ],
    [
      "Apache Iceberg Connect sink with task id",
      {
        "kafka.connect.commit-id": "c1",
        "kafka.connect.task-id": "orders-sink-1",
        "kafka.connect.valid-through-ts": "2026-11-29T09:10:00+00:00",
        "kafka.connect.offsets.control-iceberg.connect-orders-sink": '{"0":7}',
      },
      {
        kind: "connect",
        connector: "orders-sink",
        taskId: "orders-sink-1",
        group: "connect-orders-sink",
        generation: "iceberg",
      },
    ],
    [
      "Apache Iceberg Connect sink before the task id",
      {
        "kafka.connect.commit-id": "c1",
        "kafka.connect.valid-through-ts": "2026-11-29T09:10:00+00:00",
        "kafka.connect.offsets.control-iceberg.connect-orders-sink": '{"0":7}',
      },
      { kind: "connect", connector: "orders-sink", group: "connect-orders-sink", generation: "iceberg" },
    ],
    [
      "tabular/databricks sink",
      {
        "kafka.connect.commit-id": "c1",
        "kafka.connect.vtts": "1764407400000",
        "kafka.connect.offsets.control-iceberg.cg-control-orders-sink": '{"0":7}',
      },
      { kind: "connect", connector: "orders-sink", group: "cg-control-orders-sink", generation: "tabular" },
    ],
    [
      "tabular sink 0.4 (commitId)",
      {
        "kafka.connect.commitId": "c1",
        "kafka.connect.vtts": "1764407400000",
        "kafka.connect.offsets.control-iceberg.cg-control-orders-sink": '{"0":7}',
      },
      { kind: "connect", connector: "orders-sink", group: "cg-control-orders-sink", generation: "tabular" },
    ],
    [
      "tabular sink before 0.4 (offsets without a group)",
      { "kafka.connect.commitId": "c1", "kafka.connect.control.offsets.control-iceberg": '{"0":7}' },
      { kind: "connect", generation: "tabular" },
    ],
    [
      "Spark batch",
      { "spark.app.id": "application_1764000000000_0412" },
      { kind: "spark", appId: "application_1764000000000_0412" },
    ],
    [
      "Spark structured streaming",
      { "spark.app.id": "app-7", "spark.sql.streaming.queryId": "q-1", "spark.sql.streaming.epochId": "9" },
      { kind: "spark", appId: "app-7", streamingQueryId: "q-1" },
    ],
    [
      "Trino",
      { trino_query_id: "20261129_091000_00042_abcde" },
      { kind: "trino", queryId: "20261129_091000_00042_abcde" },
    ],
    [
      "engine name only",
      { "engine-name": "flink", "engine-version": "1.20.1" },
      { kind: "engine", name: "flink", version: "1.20.1" },
    ],
    [
      "a job label",
      { job: "nightly-backfill", "engine-name": "spark" },
      { kind: "other", label: "nightly-backfill" },
    ],
    ["nothing", {}, { kind: "anonymous" }],
  ])("%s", (_name, summary, expected) => {
    expect(committerOf(bare(summary))).toEqual(expected);
  });

  it("names writers of other engines in words", () => {
    expect(describeCommitter({ kind: "trino", queryId: "q42" })).toBe("Trino query q42");
    expect(describeCommitter({ kind: "spark", appId: "app-7", streamingQueryId: "q-1" })).toBe(
      "Spark streaming query app-7",
    );
    expect(describeCommitter({ kind: "engine", name: "duckdb", version: "1.1" })).toContain(
      "engine-name duckdb",
    );
    expect(describeCommitter({ kind: "connect", group: "team-a-group", generation: "unknown" })).toContain(
      "group team-a-group",
    );
  });

  it("tells two connectors of the older sink apart by the group their offsets key names", () => {
    const theirs = bare({
      "kafka.connect.commit-id": "c1",
      "kafka.connect.vtts": "1",
      "kafka.connect.offsets.control-iceberg.cg-control-replay-sink": "{}",
    });
    const ours = bare({
      "kafka.connect.commit-id": "c2",
      "kafka.connect.vtts": "1",
      "kafka.connect.offsets.control-iceberg.cg-control-orders-sink": "{}",
    });
    const custom = bare({
      "kafka.connect.commit-id": "c3",
      "kafka.connect.offsets.control-iceberg.team-a": "{}",
    });
    expect(isWriterSnapshot(ours, { kind: "connect", connector: "orders-sink" })).toBe(true);
    expect(isWriterSnapshot(theirs, { kind: "connect", connector: "orders-sink" })).toBe(false);
    expect(isWriterSnapshot(custom, { kind: "connect", connector: "orders-sink" })).toBe(false);
    expect(isWriterSnapshot(custom, { kind: "connect", connector: "orders-sink", groups: ["team-a"] })).toBe(
      true,
    );
  });

  it("the follow-up check recognises the older sink's commits as the connector's", () => {
    const older = bare({
      "kafka.connect.commitId": "c1",
      "kafka.connect.offsets.control-iceberg.cg-control-orders-sink": "{}",
    });
    expect(committedBy(older, { kind: "connect", connector: "orders-sink" })).toBe(true);
    expect(committedBy(older, { kind: "connect", connector: "payments-sink" })).toBe(false);
    expect(committedBy(bare({ trino_query_id: "q" }), { kind: "unknown" })).toBe(false);
  });
});

describe("attribution by timing", () => {
  const job = () => flinkJob({ latestCompletedAgo: 0 });
  const anonymousAfterCheckpoints = (delay: number, perCheckpoint = 1) =>
    Array.from({ length: 12 }, (_, k) =>
      Array.from({ length: perCheckpoint }, (_, i) =>
        snap(k * 5 * MIN - delay - i * 2 * SEC, { by: {} as never }),
      ),
    ).flat();

  it("ties commits without keys that land seconds after completed checkpoints", () => {
    const reading = tieToFlinkCheckpoints(
      table({ snapshots: anonymousAfterCheckpoints(4 * SEC) }).snapshots,
      job(),
      NOW,
    );
    expect(reading?.ties.length).toBe(12);
    expect(reading?.maxPerAnchor).toBe(1);
  });

  it("ties nothing when the commits do not follow the checkpoints", () => {
    const offBeat = series(100 * MIN, 4 * MIN, 7 * MIN, { by: {} as never });
    expect(tieToFlinkCheckpoints(table({ snapshots: offBeat }).snapshots, job(), NOW)).toBeNull();
  });

  it("counts several commits per checkpoint: the subtasks commit on their own", () => {
    const reading = tieToFlinkCheckpoints(
      table({ snapshots: anonymousAfterCheckpoints(3 * SEC, 4) }).snapshots,
      job(),
      NOW,
    );
    expect(reading?.maxPerAnchor).toBe(4);
    expect(reading?.multiAnchors).toBeGreaterThanOrEqual(3);
  });

  it("ties keyless commits to a connector by its commit interval", () => {
    const beat = series(100 * MIN, 3 * MIN, 5 * MIN, { by: {} as never });
    expect(tieToCommitInterval(table({ snapshots: beat }).snapshots, 5 * MIN, NOW)?.ties.length).toBe(
      beat.length,
    );
  });
});

describe("diagnosis with attribution", () => {
  const tabular = (ago: number) =>
    snap(ago, {
      by: {} as never,
      summary: {
        "kafka.connect.commitId": `c-${ago}`,
        "kafka.connect.vtts": String(NOW - ago - 1500),
        "kafka.connect.offsets.control-iceberg.cg-control-orders-sink": '{"0":7}',
      },
    });

  it("a table written only by the older Connect sink, committing on time, is healthy and names the connector", () => {
    const snapshots = Array.from({ length: 60 }, (_, k) => tabular(2 * MIN + k * 5 * MIN));
    const report = diagnose(
      evidence({ table: table({ snapshots }), connect: connect({ name: "orders-sink" }) }),
      NOW,
      { playbooks: PLAYBOOKS },
    );
    expect(report.verdict).toBe("healthy");
    expect(report.findings.map((f) => f.id)).not.toContain("writer-never-committed");
    expect(JSON.stringify(report.findings)).toContain("connector orders-sink");
  });

  it("finds the older sink's connector from the catalog alone", () => {
    const snapshots = Array.from({ length: 20 }, (_, k) => tabular(2 * MIN + k * 5 * MIN));
    const ctx = buildContext(evidence({ table: table({ snapshots }) }), NOW);
    expect(ctx.writer).toEqual({ kind: "connect", connector: "orders-sink" });
    expect(ctx.writerStale).toBe(false);
  });

  it("a four-minute-old table is never critical: a note says when the first commit is due", () => {
    const t = table({ snapshots: [], lastUpdatedAgo: 4 * MIN });
    const report = diagnose(evidence({ table: t, connect: connect({ name: "orders-sink" }) }), NOW, {
      playbooks: PLAYBOOKS,
    });
    expect(report.verdict).toBe("healthy");
    expect(report.findings.some((f) => f.severity === "critical")).toBe(false);
    const note = report.findings.find((f) => f.id === "writer-never-committed");
    expect(note?.severity).toBe("info");
    expect(note?.summary).toContain("first commit is expected by");
  });

  it("an old table whose connector never committed is still writer-never-committed", () => {
    const t = table({ snapshots: [], lastUpdatedAgo: DAY });
    const report = diagnose(evidence({ table: t, connect: connect({ name: "orders-sink" }) }), NOW, {
      playbooks: PLAYBOOKS,
    });
    expect(report.verdict).toBe("writer-never-committed");
  });

  it("says when the writer's commits were attributed by timing", () => {
    const snapshots = Array.from({ length: 12 }, (_, k) => snap(k * 5 * MIN + 56 * SEC, { by: {} as never }));
    const report = diagnose(evidence({ table: table({ snapshots }), flink: flinkJob({ jobId: JOB }) }), NOW, {
      playbooks: PLAYBOOKS,
    });
    expect(report.verdict).toBe("healthy");
    expect(JSON.stringify(report.findings)).toContain("attributed by timing");
  });
});
