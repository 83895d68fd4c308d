// No new data and the Flink job cannot reach a checkpoint: the commit never ran. Checkpoints
// first; a restart loop caused by commit exceptions is a commit problem, not this one.

import type { EvidenceItem } from "../../report/schema.js";
import { compact, elapsedMetric, writerLastCommit } from "../evidence-items.js";
import { checkpointHealth } from "../flink-health.js";
import { type DiagnosisRule, finding } from "../rule.js";

export const commitNotAttempted: DiagnosisRule = {
  id: "commit-not-attempted",
  evaluate(ctx) {
    const job = ctx.job;
    if (!job || ctx.writerStale !== true) return null;
    const health = checkpointHealth(ctx);
    const commitFailuresInFlink = ctx.failures.some((f) => f.source === "flink");
    const notRunning = job.job.state !== "RUNNING" && !commitFailuresInFlink;
    if (!health?.failing && !notRunning) return null;
    const items: EvidenceItem[] = [...(health?.failing ? health.evidence : [])];
    if (notRunning) {
      items.unshift({
        source: "flink",
        detail: `Job ${job.job.jobId} (${job.job.name}) is ${job.job.state}`,
        data: { jobId: job.job.jobId, state: job.job.state },
      });
    }
    return finding(
      "critical",
      notRunning
        ? `No commit was attempted: the writer job is ${job.job.state}, so no checkpoint completes to trigger one`
        : "No commit was attempted: the writer's checkpoints are failing, so the Iceberg commit never runs",
      compact([...items, writerLastCommit(ctx), elapsedMetric(ctx)]),
    );
  },
};
