// The commit timeline drawn from real evidence (the simulated lakehouse over loopback HTTP): the
// chart model and the ECharts option say which lanes, marks, failures and lines will be drawn; the
// SVG and the PNG prove they were drawn, at the size the spec asked for.

import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { renderPng } from "../../src/adapters/chart/render-png.js";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../src/config.js";
import { buildTimeline, describeTimeline, type TimelineChart } from "../../src/core/chart/timeline.js";
import {
  CHECKPOINT_FAILED_SERIES,
  CHECKPOINT_OK_SERIES,
  CHECKPOINT_ROW,
  FAILURE_COLOUR,
  FAILURE_SERIES,
  timelineRows,
  timelineSpec,
} from "../../src/core/chart/timeline-spec.js";
import type { Evidence } from "../../src/core/evidence/model.js";
import { investigate } from "../../src/services/investigate/investigate.js";
import { startLakehouse } from "../../src/sim/lakehouse.js";
import { loadScenario } from "../../src/sim/scenarios.js";
import { decodePng } from "../support/png.js";

const agent = new Agent();
afterAll(() => agent.close());

async function evidenceOf(scenario: string): Promise<{ evidence: Evidence; now: number }> {
  const lakehouse = await startLakehouse({ scenario });
  try {
    const config = loadConfig({
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      CONNECT_REST_URL: lakehouse.urls.connect,
      PROMETHEUS_URL: lakehouse.urls.prometheus,
    });
    const ports = createEvidencePorts(config, { dispatcher: agent, timeoutMs: 3000 });
    const now = lakehouse.clock.now();
    const evidence = await investigate(ports, { table: loadScenario(scenario).table }, () => now);
    return { evidence, now };
  } finally {
    await lakehouse.close();
  }
}

type Series = { name: string; data: unknown[][]; markLine?: { data: Array<{ xAxis: number }> } };

function seriesOf(chart: TimelineChart): Series[] {
  return timelineSpec(chart).option.series as Series[];
}

/** Marks per lane label as the option will draw them (every operation series together). */
function marksPerRow(chart: TimelineChart): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of seriesOf(chart)) {
    if (!["append", "overwrite", "replace", "delete", "other"].includes(s.name)) continue;
    for (const point of s.data) counts[String(point[1])] = (counts[String(point[1])] ?? 0) + 1;
  }
  return counts;
}

/** Snapshots in the chart's span, counted by the summary key that names their committer. */
function snapshotsInSpan(evidence: Evidence, chart: TimelineChart, key: string, value?: string): number {
  return (evidence.catalog?.snapshots ?? []).filter(
    (s) =>
      s.timestampMs >= chart.fromMs &&
      s.timestampMs <= chart.toMs &&
      s.summary[key] !== undefined &&
      (value === undefined || s.summary[key] === value),
  ).length;
}

describe("the commit timeline of a diagnosis", () => {
  it("draws the writer's lane, the competing Spark appends, each failed commit and the checkpoints", async () => {
    const { evidence, now } = await evidenceOf("competing-appends");
    const chart = buildTimeline(evidence, now);
    expect(chart.lanes.map((l) => l.label)).toEqual(["Flink events-ingest", "Spark …0000_0412"]);
    expect(chart.lanes[0]?.writer).toBe(true);
    const rows = timelineRows(chart).map((r) => r.label);
    expect(rows).toEqual(["Flink events-ingest\n(writer)", CHECKPOINT_ROW, "Spark …0000_0412"]);

    const perRow = marksPerRow(chart);
    const writerJob = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
    expect(perRow["Flink events-ingest\n(writer)"]).toBe(
      snapshotsInSpan(evidence, chart, "flink.job-id", writerJob),
    );
    expect(perRow["Spark …0000_0412"]).toBe(snapshotsInSpan(evidence, chart, "spark.app.id"));
    expect(perRow["Spark …0000_0412"]).toBeGreaterThan(30);

    // Four CommitFailedExceptions in Flink's history, all on the writer's lane, after its last commit.
    const failures = seriesOf(chart).find((s) => s.name === FAILURE_SERIES);
    expect(failures?.data).toHaveLength(4);
    expect(failures?.data.every((p) => p[1] === "Flink events-ingest\n(writer)")).toBe(true);
    expect(chart.window).toBeDefined();
    expect(chart.failures.every((f) => f.atMs >= chart.window!.fromMs)).toBe(true);
    expect(seriesOf(chart).find((s) => s.name === CHECKPOINT_OK_SERIES)?.data.length).toBeGreaterThan(5);

    // Drawn: lane names and one vermilion cross per failure in the SVG; a real PNG of the spec's size.
    const spec = timelineSpec(chart);
    const rendered = await renderPng(spec);
    expect(rendered.svg).toContain("Flink events-ingest");
    expect(rendered.svg).toContain("Spark …0000_0412");
    const crosses =
      rendered.svg.match(new RegExp(`<path [^>]*fill="${FAILURE_COLOUR.toLowerCase()}"`, "gi")) ?? [];
    // Each failure mark, plus its legend icon.
    expect(crosses.length).toBe(4 + 1);
    const png = decodePng(rendered.png);
    expect(png).toMatchObject({ width: rendered.width, height: rendered.height });
    expect(png.width).toBe(Math.round(spec.width * 1.5));
    expect(png.height).toBe(Math.round(spec.height * 1.5));
    expect(describeTimeline(chart)).toMatch(
      /Flink events-ingest \(the writer\): \d+ commits; .*4 failed commits\./,
    );
  });

  it("gives each Flink job its own lane when two jobs commit to one table", async () => {
    const { evidence, now } = await evidenceOf("multiple-flink-jobs");
    const chart = buildTimeline(evidence, now);
    const flinkLanes = chart.lanes.filter((l) => l.kind === "flink");
    expect(flinkLanes).toHaveLength(2);
    expect(flinkLanes.filter((l) => l.writer)).toHaveLength(1);
    for (const lane of flinkLanes) {
      const jobId = lane.id.replace("flink:", "");
      expect(chart.marks.filter((m) => m.lane === lane.id)).toHaveLength(
        snapshotsInSpan(evidence, chart, "flink.job-id", jobId),
      );
    }
  });

  it("colours compaction as replace on the compacting committer's lane", async () => {
    const { evidence, now } = await evidenceOf("rewrite-in-window");
    const chart = buildTimeline(evidence, now);
    const spark = chart.lanes.find((l) => l.kind === "spark")!;
    const replaces = seriesOf(chart).find((s) => s.name === "replace");
    expect(replaces?.data.length).toBeGreaterThan(0);
    expect(replaces?.data.every((p) => p[1] === spark.label)).toBe(true);
    expect(chart.marks.filter((m) => m.operation === "replace" && m.lane !== spark.id)).toHaveLength(0);
  });

  it("puts the Connect failure on the connector's lane and draws no checkpoint strip", async () => {
    const { evidence, now } = await evidenceOf("connect-coordinator-stopped");
    const chart = buildTimeline(evidence, now);
    expect(chart.lanes[0]).toMatchObject({ label: "Connect events-sink", writer: true, kind: "connect" });
    expect(chart.failures).toHaveLength(1);
    expect(chart.failures[0]?.lane).toBe(chart.lanes[0]?.id);
    expect(timelineRows(chart).map((r) => r.id)).not.toContain(CHECKPOINT_ROW);
  });

  it("shows failed checkpoints, not commit failures, when the commit never ran", async () => {
    const { evidence, now } = await evidenceOf("commit-not-attempted");
    const chart = buildTimeline(evidence, now);
    expect(chart.failures).toHaveLength(0);
    const failed = seriesOf(chart).find((s) => s.name === CHECKPOINT_FAILED_SERIES);
    expect(failed?.data.length).toBeGreaterThan(3);
    expect(failed?.data.every((p) => p[1] === CHECKPOINT_ROW)).toBe(true);
  });

  it("after a change draws the change line and the recovery, and keeps the first window", async () => {
    const { evidence, now } = await evidenceOf("competing-appends");
    const first = buildTimeline(evidence, now);
    const chart = buildTimeline(evidence, now, {
      change: { atMs: now - 120_000, label: "change: raise the commit retry budget" },
      recovery: { atMs: now - 30_000, label: "writer recovered" },
      window: first.window!,
    });
    const lines = seriesOf(chart).filter((s) => s.markLine);
    expect(lines.map((s) => s.markLine!.data[0]!.xAxis)).toEqual([now - 120_000, now - 30_000]);
    expect(lines.map((s) => s.name)).toEqual([
      expect.stringMatching(/^change: raise the commit retry budget \d\d:\d\d$/),
      expect.stringMatching(/^writer recovered \d\d:\d\d$/),
    ]);
    expect(chart.window).toEqual(first.window);
    const rendered = await renderPng(timelineSpec(chart));
    expect(rendered.svg).toContain("writer recovered");
    expect(decodePng(rendered.png).height).toBeGreaterThan(
      decodePng((await renderPng(timelineSpec(first))).png).height,
    );
  });
});
