import { describe, expect, it } from "vitest";
import type { FlinkJobSummary, Snapshot } from "../../../src/core/evidence/model.js";
import {
  candidateWriterJobs,
  jobWritesTable,
  matchingConnectors,
  namesTable,
  pickFlinkWriter,
  recentFlinkWriters,
} from "../../../src/services/investigate/writers.js";

const A = "a".repeat(32);
const B = "b".repeat(32);
const C = "c".repeat(32);

function snap(at: number, jobId?: string): Snapshot {
  return {
    snapshotId: String(at),
    timestampMs: at,
    operation: "append",
    summary: jobId ? { operation: "append", "flink.job-id": jobId } : { operation: "append" },
  };
}

function job(jobId: string, state: string): FlinkJobSummary {
  return { jobId, name: jobId.slice(0, 4), state, startTimeMs: 0 };
}

describe("writer discovery", () => {
  it("lists distinct Flink writers newest first", () => {
    expect(recentFlinkWriters([snap(1, A), snap(3, B), snap(2, A), snap(4), snap(5, B)])).toEqual([B, A]);
  });

  it("prefers the newest RUNNING writer, then the newest one Flink knows", () => {
    expect(pickFlinkWriter([B, A], [job(A, "RUNNING"), job(B, "FAILED")])).toBe(A);
    expect(pickFlinkWriter([B, A], [job(A, "CANCELED"), job(B, "FAILED")])).toBe(B);
    expect(pickFlinkWriter([C], [job(A, "RUNNING")])).toBe(undefined);
  });

  it("compares table names with or without a catalog in front", () => {
    const table = { namespace: ["db"], name: "events" };
    expect(namesTable("db.events", table)).toBe(true);
    expect(namesTable("iceberg.db.events", table)).toBe(true);
    expect(namesTable(" DB.Events ", table)).toBe(true);
    expect(namesTable("db.events_v2", table)).toBe(false);
    expect(namesTable("otherdb.events", table)).toBe(false);
  });

  it("finds the connector listing the table, else a dynamic-routing candidate", () => {
    const table = { namespace: ["db"], name: "events" };
    const staticSink = { name: "s", type: "sink", config: { "iceberg.tables": "db.clicks, db.events" } };
    const dynamic = {
      name: "d",
      type: "sink",
      config: { "iceberg.tables.dynamic-enabled": "true", "iceberg.tables.route-field": "db_table" },
    };
    const other = { name: "o", type: "sink", config: { "iceberg.tables": "db.clicks" } };
    expect(matchingConnectors([other, dynamic, staticSink], table)[0]).toEqual({
      name: "s",
      source: "discovered",
    });
    expect(matchingConnectors([other, dynamic], table)[0]).toEqual({ name: "d", source: "candidate" });
    expect(matchingConnectors([other], table)[0]).toBe(undefined);
  });
});

describe("candidate writers", () => {
  const table = { namespace: ["db"], name: "events" };
  const vertexJob = (name: string) => ({
    job: { jobId: A, name: "x", state: "FAILED", startTimeMs: 0 },
    vertices: [{ vertexId: "v", name, parallelism: 1, status: "FAILED" }],
    exceptions: [],
    backpressure: [],
  });

  it("reads jobs from the snapshots and live or recently failed jobs, never the primary twice", () => {
    const jobs = [job(A, "RUNNING"), job(B, "CANCELED"), job(C, "RESTARTING")];
    expect(candidateWriterJobs([B], jobs, A)).toEqual([B, C]);
    const old = { ...job(C, "FAILED"), startTimeMs: 0 };
    const recent = { ...job(B, "FAILED"), startTimeMs: 3 * 24 * 3600 * 1000 };
    expect(candidateWriterJobs([], [old, recent], undefined)).toEqual([B]);
  });

  it("knows a writer by its committer metrics or by either sink generation's vertex names", () => {
    expect(
      jobWritesTable(vertexJob("IcebergFilesCommitter -> Sink: IcebergSink iceberg.db.events"), table),
    ).toBe(true);
    expect(jobWritesTable(vertexJob("db.events: Committer"), table)).toBe(true);
    expect(
      jobWritesTable(vertexJob("IcebergFilesCommitter -> Sink: IcebergSink iceberg.db.events_v2"), table),
    ).toBe(false);
    expect(jobWritesTable(vertexJob("Source: events -> Map"), table)).toBe(false);
  });
});

describe("every connector of the table", () => {
  it("lists connectors naming the table first, then dynamic routers", () => {
    const table = { namespace: ["db"], name: "events" };
    const info = (name: string, config: Record<string, string>) => ({ name, type: "sink", config });
    const list = [
      info("dyn", { "iceberg.tables.dynamic-enabled": "true", "iceberg.tables.route-field": "t" }),
      info("a", { "iceberg.tables": "db.events" }),
      info("other", { "iceberg.tables": "db.orders" }),
      info("b", { "iceberg.tables": "db.orders, iceberg.db.events" }),
    ];
    expect(matchingConnectors(list, table)).toEqual([
      { name: "a", source: "discovered" },
      { name: "b", source: "discovered" },
      { name: "dyn", source: "candidate" },
    ]);
  });
});
