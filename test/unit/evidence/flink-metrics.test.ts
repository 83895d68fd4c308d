import { describe, expect, it } from "vitest";
import {
  type CommitterMetricId,
  foldCommitterMetrics,
  parseCommitterMetricId,
  pickMetricTable,
} from "../../../src/adapters/evidence/flink/metrics.js";

const V = "b601cdeccdfe7f3c240808f024c63775";

function ids(list: string[]): CommitterMetricId[] {
  return list
    .map((id) => parseCommitterMetricId(id, V))
    .filter((m): m is CommitterMetricId => m !== undefined);
}

describe("committer metric ids", () => {
  it("reads FlinkSink v1 and IcebergSink v2 ids, with and without the subtask prefix", () => {
    expect(
      parseCommitterMetricId(
        "0.IcebergFilesCommitter.IcebergFilesCommitter.table.iceberg_my_db_my_table.elapsedSecondsSinceLastSuccessfulCommit",
        V,
      ),
    ).toMatchObject({
      subtask: 0,
      operatorName: "IcebergFilesCommitter",
      metricTable: "iceberg_my_db_my_table",
      metric: "elapsedSecondsSinceLastSuccessfulCommit",
    });
    expect(
      parseCommitterMetricId(
        "3.iceberg_my_db_my_table__Committer.IcebergFilesCommitter.table.iceberg_my_db_my_table.committedDataFilesCount",
        V,
      ),
    ).toMatchObject({ subtask: 3, operatorName: "iceberg_my_db_my_table__Committer" });
    expect(
      parseCommitterMetricId("IcebergFilesCommitter.IcebergFilesCommitter.table.t_x.lastCommitDurationMs", V),
    ).toMatchObject({ subtask: undefined, metricTable: "t_x" });
  });

  it("ignores writer metrics, unknown committer metrics and unrelated ids", () => {
    expect(
      parseCommitterMetricId("0.IcebergStreamWriter.IcebergStreamWriter.table.db_t.flushedDataFiles", V),
    ).toBe(undefined);
    expect(
      parseCommitterMetricId(
        "0.IcebergFilesCommitter.IcebergFilesCommitter.table.db_t.committedDataFilesRecordCount",
        V,
      ),
    ).toBe(undefined);
    expect(parseCommitterMetricId("0.numRecordsIn", V)).toBe(undefined);
  });

  it("matches the table by a name ending with ours and prefers an exact one", () => {
    const found = ids([
      "0.C.IcebergFilesCommitter.table.iceberg_db_events.lastCommitDurationMs",
      "0.C.IcebergFilesCommitter.table.iceberg_db_clicks.lastCommitDurationMs",
    ]);
    expect(pickMetricTable(found, "db_events")).toEqual(["iceberg_db_events"]);
    const withExact = ids([
      ...found.map((f) => f.id),
      "0.C.IcebergFilesCommitter.table.db_events.lastCommitDurationMs",
    ]);
    expect(pickMetricTable(withExact, "db_events")).toEqual(["db_events"]);
  });

  it("reports every candidate when several tables end with our name", () => {
    const found = ids([
      "0.C.IcebergFilesCommitter.table.cat1_db_events.lastCommitDurationMs",
      "0.C.IcebergFilesCommitter.table.cat2_db_events.lastCommitDurationMs",
      "0.C.IcebergFilesCommitter.table.xdb_events.lastCommitDurationMs",
    ]);
    expect(pickMetricTable(found, "db_events")).toEqual(["cat1_db_events", "cat2_db_events"]);
  });

  it("folds subtasks: gauges take the largest value, counters add up, junk values are skipped", () => {
    const found = ids([
      "0.C.IcebergFilesCommitter.table.t_x.elapsedSecondsSinceLastSuccessfulCommit",
      "1.C.IcebergFilesCommitter.table.t_x.elapsedSecondsSinceLastSuccessfulCommit",
      "0.C.IcebergFilesCommitter.table.t_x.committedDataFilesCount",
      "1.C.IcebergFilesCommitter.table.t_x.committedDataFilesCount",
      "0.C.IcebergFilesCommitter.table.t_x.lastCommitDurationMs",
    ]);
    const values = new Map<string, number>([
      [found[0]!.id, 30],
      [found[1]!.id, 90],
      [found[2]!.id, 5],
      [found[3]!.id, 7],
      [found[4]!.id, Number.NaN],
    ]);
    expect(foldCommitterMetrics(found, values)).toEqual({
      vertexId: V,
      operatorName: "C",
      metricTable: "t_x",
      elapsedSecondsSinceLastSuccessfulCommit: 90,
      committedDataFilesCount: 12,
    });
    expect(foldCommitterMetrics([], values)).toBe(undefined);
  });
});
