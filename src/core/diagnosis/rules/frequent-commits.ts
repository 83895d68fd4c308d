// Commits more often than once a minute: a checkpoint or commit interval under 60 s, or 1,440+
// writer snapshots in the day before its newest one. Every commit is another race for the pointer.

import { groupDigits } from "../../plural.js";
import type { EvidenceItem } from "../../report/schema.js";
import { describeWriter } from "../evidence-items.js";
import { type DiagnosisRule, finding } from "../rule.js";
import { lowerBound } from "../snapshots.js";

const MIN_INTERVAL_MS = 60_000;
const DAY_MS = 86_400_000;
const DAILY_LIMIT = 1_440;

export const frequentCommits: DiagnosisRule = {
  id: "frequent-commits",
  evaluate(ctx) {
    const items: EvidenceItem[] = [];
    const checkpointInterval = ctx.job?.checkpointConfig?.intervalMs;
    if (checkpointInterval !== undefined && checkpointInterval < MIN_INTERVAL_MS) {
      items.push({
        source: "flink",
        detail: `Checkpoint interval ${groupDigits(checkpointInterval)} ms: the job commits on every checkpoint`,
        data: { jobId: ctx.job!.job.jobId, checkpointIntervalMs: checkpointInterval },
      });
    }
    const connectInterval = ctx.connect?.config["iceberg.control.commit.interval-ms"];
    if (connectInterval !== undefined && Number(connectInterval) < MIN_INTERVAL_MS) {
      items.push({
        source: "connect",
        detail: `iceberg.control.commit.interval-ms = ${connectInterval}`,
        data: { key: "iceberg.control.commit.interval-ms", value: connectInterval },
      });
    }
    const newest = ctx.writerNewest;
    if (newest) {
      let count = 0;
      for (let i = ctx.writerNewestIndex; i >= lowerBound(ctx.snapshots, newest.timestampMs - DAY_MS); i--) {
        if (ctx.isWriter(ctx.snapshots[i]!)) count++;
      }
      if (count >= DAILY_LIMIT) {
        items.push({
          source: "catalog",
          detail: `${groupDigits(count)} snapshots from ${describeWriter(ctx)} in the 24 h before its newest commit`,
          data: { writerSnapshotsPerDay: count, limit: DAILY_LIMIT },
        });
      }
    }
    return finding(
      "warning",
      "The writer commits more than once a minute; each commit is another race for the table",
      items,
    );
  },
};
