// The adapters read every exception down to the root of its Caused by chain: Flink's exception
// history and each Kafka Connect connector and task trace.

import { describe, expect, it } from "vitest";
import { toConnectorStatus } from "../../../src/adapters/evidence/connect/schemas.js";
import { toExceptions } from "../../../src/adapters/evidence/flink/exceptions.js";

const FLINK_TRACE = [
  "java.lang.RuntimeException: Error while confirming checkpoint",
  "\tat org.apache.flink.runtime.taskmanager.Task.lambda$notifyCheckpoint$12(Task.java:1460)",
  "Caused by: org.apache.iceberg.exceptions.NotAuthorizedException: Not authorized: Token expired",
  "\tat org.apache.iceberg.rest.ErrorHandlers$DefaultErrorHandler.accept(ErrorHandlers.java:212)",
  "\t... 7 more",
].join("\n");

const TASK_TRACE = [
  "org.apache.kafka.connect.errors.ConnectException: Exiting WorkerSinkTask due to unrecoverable exception.",
  "\tat org.apache.kafka.connect.runtime.WorkerSinkTask.deliverMessages(WorkerSinkTask.java:636)",
  "Caused by: java.lang.OutOfMemoryError: Java heap space",
  "\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)",
].join("\n");

describe("exception chains at the edge", () => {
  it("Flink: each history entry carries its chain, root last", () => {
    const [found] = toExceptions({
      exceptionHistory: {
        entries: [{ exceptionName: "java.lang.RuntimeException", stacktrace: FLINK_TRACE, timestamp: 7 }],
      },
    });
    expect(found?.message).toBe("Error while confirming checkpoint");
    expect(found?.causes).toEqual([
      { className: "java.lang.RuntimeException", message: "Error while confirming checkpoint" },
      {
        className: "org.apache.iceberg.exceptions.NotAuthorizedException",
        message: "Not authorized: Token expired",
      },
    ]);
  });

  it("Connect: a FAILED task's trace carries its chain; a RUNNING task has none", () => {
    const status = toConnectorStatus({
      name: "orders-sink",
      type: "sink",
      connector: { state: "RUNNING", worker_id: "10.0.4.21:8083" },
      tasks: [
        { id: 1, state: "RUNNING", worker_id: "10.0.4.21:8083" },
        { id: 0, state: "FAILED", worker_id: "10.0.4.21:8083", trace: TASK_TRACE },
      ],
    });
    expect(status.tasks[0]?.causes?.at(-1)).toEqual({
      className: "java.lang.OutOfMemoryError",
      message: "Java heap space",
    });
    expect(status.tasks[1]?.causes).toBeUndefined();
    expect(status.causes).toBeUndefined();
  });
});
