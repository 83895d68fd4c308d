import { describe, expect, it } from "vitest";
import { toExceptions } from "../../../src/adapters/evidence/flink/exceptions.js";

const COMMIT_FAILED =
  "org.apache.iceberg.exceptions.CommitFailedException: Cannot commit db.events: branch main has changed\n\tat org.apache.iceberg.SnapshotProducer.commit(SnapshotProducer.java:420)";

describe("Flink exceptions", () => {
  it("reads the history newest first and splits class from message", () => {
    const found = toExceptions({
      exceptionHistory: {
        entries: [
          {
            exceptionName: "java.lang.RuntimeException",
            stacktrace: "java.lang.RuntimeException",
            timestamp: 1,
          },
          {
            exceptionName: "org.apache.iceberg.exceptions.CommitFailedException",
            stacktrace: COMMIT_FAILED,
            timestamp: 5,
            taskName: "IcebergFilesCommitter (1/1)",
          },
        ],
      },
    });
    expect(found.map((e) => e.timestampMs)).toEqual([5, 1]);
    expect(found[0]).toMatchObject({
      exceptionName: "org.apache.iceberg.exceptions.CommitFailedException",
      message: "Cannot commit db.events: branch main has changed",
      taskName: "IcebergFilesCommitter (1/1)",
      stacktrace: COMMIT_FAILED,
    });
    expect(found[1]?.message).toBe("");
  });

  it("falls back to the root exception of older Flink versions", () => {
    const found = toExceptions({ "root-exception": COMMIT_FAILED, timestamp: 9 });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      timestampMs: 9,
      exceptionName: "org.apache.iceberg.exceptions.CommitFailedException",
      message: "Cannot commit db.events: branch main has changed",
    });
  });

  it("gives nothing when the job never failed", () => {
    expect(toExceptions({ exceptionHistory: { entries: [] } })).toEqual([]);
    expect(toExceptions({})).toEqual([]);
  });
});
