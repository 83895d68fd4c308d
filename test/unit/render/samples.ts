// Hand-written reports shaped like real diagnoses, shared by the render and JSON Schema tests, and
// a hand-written incident story for the card's tests.

import type { AuditReport, Report } from "../../../src/core/report/schema.js";
import type { IncidentStory } from "../../../src/core/story/model.js";

/** An open incident's story with nothing found yet; `over` sets what a test is about. */
export function storySample(over: Partial<IncidentStory> = {}): IncidentStory {
  return {
    incidentId: "i1",
    table: "db.events",
    channel: "C1",
    workflow: "open",
    openedAtMs: 0,
    health: "failing",
    unseen: [],
    evidence: [],
    steps: [],
    openItems: [],
    remarks: [],
    alerts: { received: 1 },
    ...over,
  };
}

const spark = (minute: number) => ({
  source: "catalog" as const,
  detail: `append snapshot 77123456789012345${minute} at 08:${String(minute).padStart(2, "0")} UTC by spark.app.id application_1700000000000_0412`,
  data: { snapshotId: `77123456789012345${minute}` },
});

export const conflictReport: Report = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: "2026-11-29T09:12:00.000Z",
  verdict: "commit-conflict",
  findings: [
    {
      id: "commit-conflict",
      severity: "critical",
      summary: "the writer's commits fail with CommitFailedException after its retries ran out",
      evidence: [
        {
          source: "flink",
          detail:
            "org.apache.iceberg.exceptions.CommitFailedException at 08:22 UTC: Requirement failed: branch main has changed",
          data: { jobId: "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b" },
        },
      ],
    },
    {
      id: "competing-appends",
      severity: "warning",
      summary: "a Spark backfill appended 7 times in the window",
      evidence: [spark(21), spark(23), spark(24), spark(26), spark(27), spark(29), spark(31)],
    },
    {
      id: "default-retry-budget",
      severity: "warning",
      summary: "commit.retry.num-retries is at its default of 4 while another writer commits",
      evidence: [{ source: "catalog", detail: "commit.retry.num-retries is unset", data: {} }],
    },
  ],
  nextStep: {
    id: "raise-commit-retries",
    playbook: "commit-failures",
    summary: "give the writer more attempts to win the race against the backfill",
    change: {
      kind: "table-properties",
      table: "db.events",
      changes: [
        { key: "commit.retry.num-retries", current: "4", proposed: "10" },
        { key: "commit.retry.min-wait-ms", current: null, proposed: "500" },
      ],
    },
    automatic: true,
  },
  sources: {
    catalog: { status: "ok", latencyMs: 12 },
    flink: { status: "ok", latencyMs: 31.4 },
    connect: { status: "not-configured" },
    prometheus: { status: "unavailable", latencyMs: 5000, error: "timed out after 5 s" },
  },
};

export const compactionReport: Report = {
  reportVersion: 1,
  table: "analytics.web.clicks",
  generatedAt: "2026-11-29T10:00:00.000Z",
  verdict: "commit-conflict",
  findings: [
    {
      id: "rewrite-in-window",
      severity: "critical",
      summary: "compaction replaced files 3 times since the last good commit",
      evidence: [{ source: "catalog", detail: "replace snapshot 1 at 09:40 UTC", data: {} }],
    },
  ],
  nextStep: {
    id: "move-compaction-off-hot-partitions",
    playbook: "commit-failures",
    summary: "compact only the partitions the writer has left",
    change: {
      kind: "manual",
      statement:
        "CALL lake.system.rewrite_data_files(\n  table => 'analytics.web.clicks',\n  where => 'event_date < ''2026-11-29''')",
      language: "sql",
      checklist: ["pause the compaction schedule first"],
    },
    automatic: false,
  },
  sources: {
    catalog: { status: "ok", latencyMs: 8 },
    flink: { status: "unavailable", error: "timed out after 5 s" },
    connect: { status: "not-configured" },
    prometheus: { status: "not-configured" },
  },
};

export const connectReport: Report = {
  reportVersion: 1,
  table: "db.orders",
  generatedAt: "2026-11-29T10:05:00.000Z",
  verdict: "connect-coordinator-stopped",
  findings: [
    {
      id: "connect-coordinator-stopped",
      severity: "critical",
      summary: "task 0 of iceberg-orders FAILED after one failed commit",
      evidence: [{ source: "connect", detail: "task 0 FAILED on 10.0.4.21:8083", data: { taskId: 0 } }],
    },
  ],
  nextStep: {
    id: "restart-connect-coordinator",
    playbook: "commit-failures",
    summary: "restart the failed tasks of the connector",
    change: { kind: "connector-restart", connector: "iceberg-orders", includeTasks: true, onlyFailed: true },
    automatic: true,
  },
  sources: {
    catalog: { status: "ok" },
    flink: { status: "not-configured" },
    connect: { status: "ok", latencyMs: 4 },
    prometheus: { status: "not-configured" },
  },
};

export const healthyReport: Report = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: "2026-11-29T09:12:00.000Z",
  verdict: "healthy",
  findings: [
    {
      id: "healthy",
      severity: "info",
      summary: "the writer committed 3 minutes ago, within its 5 minute interval",
      evidence: [
        { source: "catalog", detail: "append snapshot 42 at 09:09 UTC by the Flink writer", data: {} },
      ],
    },
  ],
  nextStep: null,
  sources: {
    catalog: { status: "ok", latencyMs: 10 },
    flink: { status: "ok", latencyMs: 20 },
    connect: { status: "not-configured" },
    prometheus: { status: "not-configured" },
  },
};

export const auditReport: AuditReport = {
  reportVersion: 1,
  table: "db.events",
  generatedAt: "2026-11-29T09:12:00.000Z",
  checks: [
    {
      id: "write-mode",
      status: "pass",
      summary: "merge-on-read for updates and deletes",
      values: { "write.update.mode": "merge-on-read" },
    },
    {
      id: "snapshot-expiry",
      status: "warn",
      summary: "snapshots older than 5 days are kept",
      values: { "history.expire.max-snapshot-age-ms": null },
      fix: "ALTER TABLE db.events SET TBLPROPERTIES ('history.expire.max-snapshot-age-ms'='86400000')",
    },
    {
      id: "retry-budget",
      status: "fail",
      summary: "commit retries at the default while 2 writers commit",
      values: { "commit.retry.num-retries": null, "commit.retry.min-wait-ms": null },
      fix: "ALTER TABLE db.events SET TBLPROPERTIES ('commit.retry.num-retries'='10')",
    },
  ],
};

/** Read in part: one Flink cluster of two and the whole of Prometheus did not answer. */
export const partialReport: Report = {
  ...healthyReport,
  sources: {
    catalog: { status: "ok", latencyMs: 10 },
    flink: {
      status: "ok",
      latencyMs: 20,
      gaps: [{ source: "flink-us", error: "Flink REST at 10.0.0.7:8081 refused the connection" }],
    },
    connect: { status: "not-configured" },
    prometheus: { status: "unavailable", error: "Prometheus did not answer within 5000 ms" },
  },
};

export const allSampleReports: Report[] = [
  conflictReport,
  compactionReport,
  connectReport,
  healthyReport,
  partialReport,
];
