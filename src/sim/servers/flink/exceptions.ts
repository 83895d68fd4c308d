// The exception history of a simulated Flink job (/jobs/{id}/exceptions), with realistic stack
// frames when the scenario gives none.

import type { SimJob, World } from "../../model/world.js";
import { resolveRelative } from "../../time.js";
import type { SimRequest } from "../http.js";
import { jobVertices } from "./model.js";

const COMMIT_FAILURE_FRAMES = [
  "org.apache.iceberg.rest.ErrorHandlers$CommitErrorHandler.accept(ErrorHandlers.java:128)",
  "org.apache.iceberg.rest.ErrorHandlers$CommitErrorHandler.accept(ErrorHandlers.java:113)",
  "org.apache.iceberg.rest.HTTPClient.throwFailure(HTTPClient.java:240)",
  "org.apache.iceberg.rest.HTTPClient.execute(HTTPClient.java:336)",
  "org.apache.iceberg.rest.BaseHTTPClient.post(BaseHTTPClient.java:100)",
  "org.apache.iceberg.rest.RESTTableOperations.commit(RESTTableOperations.java:173)",
  "org.apache.iceberg.SnapshotProducer.lambda$commit$2(SnapshotProducer.java:496)",
  "org.apache.iceberg.util.Tasks$Builder.runTaskWithRetry(Tasks.java:413)",
  "org.apache.iceberg.util.Tasks$Builder.runSingleThreaded(Tasks.java:219)",
  "org.apache.iceberg.util.Tasks$Builder.run(Tasks.java:203)",
  "org.apache.iceberg.util.Tasks$Builder.run(Tasks.java:196)",
  "org.apache.iceberg.SnapshotProducer.commit(SnapshotProducer.java:485)",
  "org.apache.iceberg.flink.sink.IcebergFilesCommitter.commitOperation(IcebergFilesCommitter.java:398)",
  "org.apache.iceberg.flink.sink.IcebergFilesCommitter.commitDeltaTxn(IcebergFilesCommitter.java:350)",
  "org.apache.iceberg.flink.sink.IcebergFilesCommitter.commitPendingResult(IcebergFilesCommitter.java:288)",
  "org.apache.iceberg.flink.sink.IcebergFilesCommitter.commitUpToCheckpoint(IcebergFilesCommitter.java:270)",
  "org.apache.iceberg.flink.sink.IcebergFilesCommitter.notifyCheckpointComplete(IcebergFilesCommitter.java:244)",
  "org.apache.flink.streaming.runtime.tasks.StreamOperatorWrapper.notifyCheckpointComplete(StreamOperatorWrapper.java:104)",
  "org.apache.flink.streaming.runtime.tasks.SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete(SubtaskCheckpointCoordinatorImpl.java:512)",
  "org.apache.flink.streaming.runtime.tasks.StreamTask.notifyCheckpointComplete(StreamTask.java:1570)",
  "org.apache.flink.runtime.taskmanager.Task.lambda$notifyCheckpoint$12(Task.java:1460)",
  "java.base/java.lang.Thread.run(Thread.java:840)",
];

/** Frames under a cause: the catalog client call that threw it. */
const CAUSE_FRAMES = [
  "org.apache.iceberg.rest.HTTPClient.throwFailure(HTTPClient.java:240)",
  "org.apache.iceberg.rest.HTTPClient.execute(HTTPClient.java:336)",
];

const GENERIC_FRAMES = [
  "org.apache.flink.streaming.runtime.tasks.StreamTask.invoke(StreamTask.java:970)",
  "org.apache.flink.runtime.taskmanager.Task.doRun(Task.java:951)",
  "org.apache.flink.runtime.taskmanager.Task.runWithSystemExitMonitoring(Task.java:930)",
  "org.apache.flink.runtime.taskmanager.Task.run(Task.java:744)",
  "java.base/java.lang.Thread.run(Thread.java:840)",
];

export function exceptionHistory(world: World, job: SimJob, req: SimRequest) {
  const vertices = jobVertices(job);
  const committer = vertices.find((v) => v.role === "committer") ?? vertices[vertices.length - 1];
  const max = Number(req.query.get("maxExceptions") ?? 20);
  const all = job.scenario.exceptions
    .map((e, i) => {
      const at = resolveRelative(e.at, world.startMs);
      const isCommit = /iceberg/i.test(e.exception) || e.causedBy.some((c) => /iceberg/i.test(c.exception));
      const frames = e.frames ?? (isCommit ? COMMIT_FAILURE_FRAMES : GENERIC_FRAMES);
      const attempt = job.scenario.exceptions.length - i;
      const taskName =
        e.taskName ?? `${committer?.name ?? "Unnamed"} (1/${committer?.parallelism ?? 1})#${attempt}`;
      const at_ = (list: readonly string[]) =>
        list.map((f) => `\tat ${f.replace(/^\s*(at\s+)?/, "")}`).join("\n");
      const causes = e.causedBy
        .map(
          (c, n) =>
            `Caused by: ${c.exception}: ${c.message}\n${at_(CAUSE_FRAMES)}\n\t... ${frames.length - n} more`,
        )
        .join("\n");
      return {
        exceptionName: e.exception,
        stacktrace: `${e.exception}: ${e.message}\n${at_(frames)}\n${causes ? `${causes}\n` : ""}`,
        timestamp: at,
        taskName,
        endpoint: "10.0.5.12:36417",
        taskManagerId: "10.0.5.12:36417-4a7c1e",
        failureLabels: {},
        concurrentExceptions: [],
      };
    })
    .sort((a, b) => b.timestamp - a.timestamp);
  const entries = all.slice(0, Math.max(0, max));
  return { exceptionHistory: { entries, truncated: entries.length < all.length } };
}
