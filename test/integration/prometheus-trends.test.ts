// Trends from the simulator's Prometheus: the range series a person would graph are read with the
// names the Flink reporter and the JMX exporter produce, kept only for this table's writer, judged
// for commit-duration-growing by slope and ratio, and drawn as the panel under the timeline.

import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { loadPlaybooks } from "../../src/adapters/playbooks/files.js";
import { loadConfig } from "../../src/config.js";
import { buildTimeline } from "../../src/core/chart/timeline.js";
import type { Evidence } from "../../src/core/evidence/model.js";
import type { Report } from "../../src/core/report/schema.js";
import { diagnoseTable } from "../../src/services/diagnose-table.js";
import { startLakehouse } from "../../src/sim/lakehouse.js";
import { loadScenario } from "../../src/sim/scenarios.js";
import { HAPPY_PATH_TIMEOUT_MS } from "../support/poll.js";

const agent = new Agent();
afterAll(() => agent.close());

async function diagnoseScenario(
  scenario: string,
  withPrometheus = true,
): Promise<{ evidence: Evidence; report: Report; now: number; promRequests: string[] }> {
  const lakehouse = await startLakehouse({ scenario });
  try {
    const config = loadConfig({
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      CONNECT_REST_URL: lakehouse.urls.connect,
      ...(withPrometheus ? { PROMETHEUS_URL: lakehouse.urls.prometheus } : {}),
    });
    const ports = createEvidencePorts(config, { dispatcher: agent, timeoutMs: HAPPY_PATH_TIMEOUT_MS });
    const now = lakehouse.clock.now();
    const { playbooks } = await loadPlaybooks();
    const { report, evidence } = await diagnoseTable(
      ports,
      { table: loadScenario(scenario).table },
      () => now,
      { playbooks },
    );
    const promRequests = lakehouse.requests
      .filter((r) => r.service === "prometheus")
      .map((r) => new URLSearchParams(r.query).get("query") ?? "");
    return { evidence, report, now, promRequests };
  } finally {
    await lakehouse.close();
  }
}

describe("Prometheus trends", () => {
  it("judges commit-duration-growing from the range series, by slope and ratio", async () => {
    const { evidence, report, now, promRequests } = await diagnoseScenario("commit-duration-growing");
    expect(promRequests).toEqual(
      expect.arrayContaining([
        "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_lastCommitDurationMs",
        "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_elapsedSecondsSinceLastSuccessfulCommit",
        "flink_taskmanager_job_task_operator_IcebergFilesCommitter_table_committedDataFilesCount",
        "flink_jobmanager_job_lastCheckpointDuration",
        "kafka_consumer_consumer_fetch_manager_metrics_records_lag_max",
      ]),
    );
    const finding = report.findings.find((f) => f.id === "commit-duration-growing");
    expect(finding?.evidence[0]).toMatchObject({
      source: "prometheus",
      data: { metric: "lastCommitDurationMs" },
    });
    const data = finding!.evidence[0]!.data as { slopeMsPerMinute: number; ratio: number };
    expect(data.slopeMsPerMinute).toBeGreaterThanOrEqual(50);
    expect(data.ratio).toBeGreaterThanOrEqual(1.5);
    // The counter became files per commit: about 30 each.
    const files = evidence.prometheus!.series.committedDataFilesPerCommit!;
    expect(files.length).toBeGreaterThan(5);
    expect(files.every((p) => p.value >= 28 && p.value <= 32)).toBe(true);
    // The panel under the timeline: commit duration in seconds, then files per commit.
    const chart = buildTimeline(evidence, now);
    expect(chart.trends.map((t) => t.id)).toEqual(["lastCommitDurationMs", "committedDataFilesPerCommit"]);
    expect(chart.trends[0]!.points.at(-1)!.value).toBeCloseTo(18.2, 5);
  });

  it("stays quiet on commit duration without Prometheus when Flink has only the latest value", async () => {
    const { report } = await diagnoseScenario("commit-duration-growing", false);
    expect(report.findings.map((f) => f.id)).not.toContain("commit-duration-growing");
  });

  it("keeps the lag of this connector's consumers only", async () => {
    const { evidence, now } = await diagnoseScenario("connect-coordinator-stopped");
    const lag = evidence.prometheus!.series.connectSinkLag!;
    expect(Math.max(...lag.map((p) => p.value))).toBe(301_000);
    expect(buildTimeline(evidence, now).trends.map((t) => t.id)).toEqual(["connectSinkLag"]);
  });

  it("keeps the writer job's checkpoint duration", async () => {
    const { evidence } = await diagnoseScenario("commit-not-attempted");
    const durations = evidence.prometheus!.series.lastCheckpointDuration!;
    expect(Math.max(...durations.map((p) => p.value))).toBe(600_000);
  });
});
