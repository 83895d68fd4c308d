// The commit timeline drawn from real evidence (the simulated lakehouse over loopback HTTP): the
// chart model and the ECharts option say which lanes, marks, failures and lines will be drawn; the
// SVG and the PNG prove they were drawn, at the size the spec asked for.

import { Agent } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { renderPng } from "../../src/adapters/chart/render-png.js";
import { createEvidencePorts } from "../../src/adapters/evidence/from-config.js";
import { loadConfig } from "../../src/config.js";
import {
  AFTER_CHANGE_SHARE,
  buildTimeline,
  describeTimeline,
  type TimelineChart,
} from "../../src/core/chart/timeline.js";
import {
  CHECKPOINT_FAILED_SERIES,
  CHECKPOINT_OK_SERIES,
  CHECKPOINT_ROW,
  FAILURE_COLOUR,
  FAILURE_SERIES,
  OPERATION_COLOURS,
  PREVIEW_WIDTH,
  RECOVERY_COLOUR,
  RECOVERY_SYMBOL,
  silentNote,
  textWidth,
  timelineRows,
  timelineSpec,
  wrapWords,
} from "../../src/core/chart/timeline-spec.js";
import type { Evidence } from "../../src/core/evidence/model.js";
import { investigate } from "../../src/services/investigate/investigate.js";
import { type Lakehouse, startLakehouse } from "../../src/sim/lakehouse.js";
import { loadScenario } from "../../src/sim/scenarios.js";
import { decodePng } from "../support/png.js";
import { HAPPY_PATH_TIMEOUT_MS } from "../support/poll.js";

const agent = new Agent();
afterAll(() => agent.close());

type Read = { evidence: Evidence; now: number };

/** Evidence as the bot reads it; `then` plays what happens next (a fix, time passing) and reads again. */
async function evidenceOf(scenario: string): Promise<Read>;
async function evidenceOf(scenario: string, then: (lakehouse: Lakehouse) => void): Promise<[Read, Read]>;
async function evidenceOf(
  scenario: string,
  then?: (lakehouse: Lakehouse) => void,
): Promise<Read | [Read, Read]> {
  const lakehouse = await startLakehouse({ scenario });
  try {
    const config = loadConfig({
      ICEBERG_CATALOG_URL: lakehouse.urls.catalog,
      FLINK_REST_URL: lakehouse.urls.flink,
      CONNECT_REST_URL: lakehouse.urls.connect,
      PROMETHEUS_URL: lakehouse.urls.prometheus,
    });
    const ports = createEvidencePorts(config, { dispatcher: agent, timeoutMs: HAPPY_PATH_TIMEOUT_MS });
    const read = async (): Promise<Read> => {
      const now = lakehouse.clock.now();
      return { evidence: await investigate(ports, { table: loadScenario(scenario).table }, () => now), now };
    };
    const first = await read();
    if (!then) return first;
    then(lakehouse);
    return [first, await read()];
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
    expect(rows).toEqual(["Flink events-ingest\n(failing writer)", CHECKPOINT_ROW, "Spark …0000_0412"]);

    const perRow = marksPerRow(chart);
    const writerJob = "4f2a9c1e0b7d4e5f8a6b3c2d1e0f9a8b";
    expect(perRow["Flink events-ingest\n(failing writer)"]).toBe(
      snapshotsInSpan(evidence, chart, "flink.job-id", writerJob),
    );
    expect(perRow["Spark …0000_0412"]).toBe(snapshotsInSpan(evidence, chart, "spark.app.id"));
    expect(perRow["Spark …0000_0412"]).toBeGreaterThan(30);

    // Four CommitFailedExceptions in Flink's history, all on the writer's lane, after its last commit.
    const failures = seriesOf(chart).find((s) => s.name === FAILURE_SERIES);
    expect(failures?.data).toHaveLength(4);
    expect(failures?.data.every((p) => p[1] === "Flink events-ingest\n(failing writer)")).toBe(true);
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
      /^Commits to db\.events from \d\d:\d\d to \d\d:\d\d UTC\. The writer, Flink events-ingest, last committed at \d\d:\d\d, then 4 failed commits \(\d\d:\d\d to \d\d:\d\d\)\. Other committers: Spark …0000_0412: \d+ commits\.$/,
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
    // Zoomed to the change and the recovery; the first window is kept where it falls in the span.
    expect(chart.window).toEqual({
      fromMs: Math.max(first.window!.fromMs, chart.fromMs),
      toMs: Math.min(first.window!.toMs, chart.toMs),
    });
    expect(chart.toMs - chart.fromMs).toBeLessThan(first.toMs - first.fromMs);
    const rendered = await renderPng(timelineSpec(chart));
    expect(rendered.svg).toContain("writer recovered");
    expect(decodePng(rendered.png).height).toBeGreaterThan(
      decodePng((await renderPng(timelineSpec(first))).png).height,
    );
  });

  it("does not call a writer that commits after its failure a failing writer (the duplicate)", async () => {
    const { evidence, now } = await evidenceOf("commit-state-unknown-duplicate");
    const chart = buildTimeline(evidence, now);
    const writer = chart.lanes.find((l) => l.writer)!;
    expect(chart.failures.some((f) => f.lane === writer.id)).toBe(true);
    const rows = timelineRows(chart).map((r) => r.label);
    expect(rows[0]).toMatch(/\(writer\)$/);
    expect(rows.join("\n")).not.toContain("(failing writer)");
  });

  it("draws the failing twin as the writer, with its short id and its failures, beside the healthy one", async () => {
    const { evidence, now } = await evidenceOf("two-writers-one-failing");
    const chart = buildTimeline(evidence, now);
    const failing = "c7e1a3b5d9f24c6e8a0b2d4f6e8c0a13";
    const healthy = "4f2a9c1e0b7d4e3a8c6f5d2b1a0e9f87";
    expect(chart.lanes.map((l) => [l.id, l.label, l.writer])).toEqual([
      [`flink:${failing}`, "Flink events-ingest (c7e1…)", true],
      [`flink:${healthy}`, "Flink events-ingest (4f2a…)", false],
    ]);
    // Both CommitFailedExceptions of the failing job, on its lane; none on the healthy twin's.
    expect(chart.failures).toHaveLength(2);
    expect(chart.failures.every((f) => f.lane === `flink:${failing}`)).toBe(true);
    expect(chart.checkpointLane).toBe(`flink:${failing}`);
    const rows = timelineRows(chart).map((r) => r.label);
    expect(rows[0]).toBe("Flink events-ingest\n(c7e1…)\n(failing writer)");
    expect(rows).toContain("Flink events-ingest\n(4f2a…)");

    const svg = (await renderPng(timelineSpec(chart))).svg;
    expect(svg).toContain(">(c7e1…)</text>");
    expect(svg).toContain(">(failing writer)</text>");
    expect(svg).toContain(">(4f2a…)</text>");
    expect(describeTimeline(chart)).toMatch(
      /The writer, Flink events-ingest \(c7e1…\), last committed at \d\d:\d\d, then 2 failed commits \(\d\d:\d\d, \d\d:\d\d\)\. Other committers: Flink events-ingest \(4f2a…\): \d+ commits\./,
    );
    // The writer the diagnosis named decides the lane, whichever job is given.
    const named = buildTimeline(evidence, now, { writer: { kind: "flink", id: healthy } });
    expect(named.lanes.find((l) => l.writer)?.id).toBe(`flink:${healthy}`);
  });

  it("after the fix keeps the failing lane, zooms on the change and the recovery, and draws the recovery unlike a replace", async () => {
    const changeDelay = 2 * 60_000;
    const [before, after] = await evidenceOf("two-writers-one-failing", (lakehouse) => {
      lakehouse.advance(changeDelay);
      expect(lakehouse.fixByHand("db.events")).toBe(1);
      lakehouse.advance(12 * 60_000);
    });
    const failing = "flink:c7e1a3b5d9f24c6e8a0b2d4f6e8c0a13";
    const first = buildTimeline(before.evidence, before.now);
    const changeAtMs = before.now + changeDelay;
    const recoveredAtMs = (after.evidence.catalog?.snapshots ?? []).find(
      (s) => s.timestampMs > changeAtMs && `flink:${s.summary["flink.job-id"]}` === failing,
    )?.timestampMs;
    expect(recoveredAtMs).toBeDefined();
    const chart = buildTimeline(after.evidence, after.now, {
      writer: { kind: "flink", id: failing.slice("flink:".length) },
      change: { atMs: changeAtMs, label: "change: one committer per table" },
      recovery: { atMs: recoveredAtMs!, label: "writer recovered" },
      window: first.window!,
    });
    expect(chart.lanes[0]).toMatchObject({ id: failing, writer: true, label: "Flink events-ingest (c7e1…)" });
    // The recovery commit is drawn on the failing writer's lane, and the last failures still show.
    expect(chart.marks.some((m) => m.lane === failing && m.atMs === recoveredAtMs)).toBe(true);
    expect(chart.failures.filter((f) => f.lane === failing).length).toBeGreaterThan(0);
    // Zoomed: the change and the recovery are apart by at least a fifth of the span.
    const share = (recoveredAtMs! - changeAtMs) / (chart.toMs - chart.fromMs);
    expect(share).toBeGreaterThanOrEqual(AFTER_CHANGE_SHARE);
    expect(chart.fromMs).toBeLessThan(changeAtMs);
    expect(chart.toMs).toBeGreaterThan(recoveredAtMs!);

    // Recovery and replace differ in colour and in shape.
    expect(RECOVERY_COLOUR).not.toBe(OPERATION_COLOURS.replace);
    const lines = seriesOf(chart).filter((s) => s.markLine) as Array<
      Series & { markLine: { symbol: string[]; lineStyle: { color: string; type: string } } }
    >;
    const recovery = lines.find((s) => s.name.startsWith("writer recovered"))!;
    expect(recovery.markLine.lineStyle.color).toBe(RECOVERY_COLOUR);
    expect(recovery.markLine.symbol).toContain(RECOVERY_SYMBOL);
    const replace = seriesOf(chart).find((s) => s.name === "replace") as { symbol?: string } | undefined;
    expect(replace?.symbol ?? "rect").not.toBe(RECOVERY_SYMBOL);
    const svg = (await renderPng(timelineSpec(chart))).svg;
    expect(svg.toLowerCase()).toContain(`stroke="${RECOVERY_COLOUR.toLowerCase()}"`);
    expect(describeTimeline(chart)).toMatch(
      /Change: one committer per table at \d\d:\d\d\. Writer recovered at \d\d:\d\d\.$/,
    );
  });

  it("writes a source that did not answer on the picture and in its text", async () => {
    const { evidence, now } = await evidenceOf("catalog-down-flink-failing");
    const chart = buildTimeline(evidence, now);
    expect(chart.silentSources).toEqual(["Iceberg REST catalog"]);
    const svg = (await renderPng(timelineSpec(chart))).svg;
    expect(svg).toContain(silentNote("Iceberg REST catalog"));
    expect(describeTimeline(chart)).toContain("Iceberg REST catalog did not answer");
    // A picture from sources that all answered says nothing of the kind.
    const healthy = await evidenceOf("competing-appends");
    const clear = buildTimeline(healthy.evidence, healthy.now);
    expect(clear.silentSources).toBeUndefined();
    expect((await renderPng(timelineSpec(clear))).svg).not.toContain("No answer from");
  });

  it("leaves out Prometheus points a person would misread", async () => {
    const { evidence, now } = await evidenceOf("competing-appends");
    const clean = buildTimeline(evidence, now);
    const span = { from: clean.fromMs, to: clean.toMs };
    const at = (i: number) => span.from + ((span.to - span.from) * (i + 1)) / 10;
    const writerCommits = clean.marks.filter((m) => m.lane === clean.lanes[0]!.id).map((m) => m.atMs);
    const lastCommit = writerCommits.at(-1)!;
    const sinceLast = (ms: number) => lastCommit + ms;
    const bent: Evidence = {
      ...evidence,
      prometheus: {
        ...evidence.prometheus!,
        series: {
          ...evidence.prometheus!.series,
          // A negative duration and one of three days, among good points.
          lastCommitDurationMs: [
            { atMs: at(1), value: 1200 },
            { atMs: at(2), value: -50 },
            { atMs: at(3), value: 3 * 86_400_000 },
            { atMs: at(4), value: 1500 },
          ],
          // Growing with the writer's silence (true), then a point that says an hour although the
          // writer's last commit is a minute older than the point (a gauge that stopped).
          elapsedSecondsSinceLastSuccessfulCommit: [
            { atMs: sinceLast(60_000), value: 60 },
            { atMs: sinceLast(120_000), value: 120 },
            { atMs: sinceLast(180_000), value: 3600 },
          ],
        },
      },
    };
    const chart = buildTimeline(bent, now);
    const duration = chart.trends.find((t) => t.id === "lastCommitDurationMs");
    expect(duration?.points.map((p) => p.value)).toEqual([1.2, 1.5]);
    const elapsed = chart.trends.find((t) => t.id === "elapsedSecondsSinceLastSuccessfulCommit");
    expect(elapsed?.points.map((p) => p.value)).toEqual([1, 2]);
    expect(chart.trends.every((t) => t.points.every((p) => p.value >= 0))).toBe(true);
  });

  it("reads at Slack's preview width: no type under 10 px at 360 px, labels whole", async () => {
    for (const scenario of ["competing-appends", "two-writers-one-failing", "rewrite-in-window"]) {
      const { evidence, now } = await evidenceOf(scenario);
      const chart = buildTimeline(evidence, now);
      const spec = timelineSpec(chart);
      const svg = (await renderPng(spec)).svg;
      const sizes = [...svg.matchAll(/font-size:(\d+(?:\.\d+)?)px|font: [a-z ]*?(\d+(?:\.\d+)?)px/g)].map(
        (m) => Number(m[1] ?? m[2]),
      );
      expect(sizes.length, scenario).toBeGreaterThan(5);
      expect(Math.min(...sizes) * (PREVIEW_WIDTH / spec.width), scenario).toBeGreaterThanOrEqual(10);
      // Every lane label is drawn whole: each of its lines is one text element, and the label column
      // is wide enough for the longest line.
      const grid = (spec.option.grid as Array<{ left: number }>)[0]!;
      for (const row of timelineRows(chart)) {
        for (const line of row.label.split("\n")) {
          expect(svg, `${scenario}: ${line}`).toContain(`>${line}</text>`);
          expect(textWidth(line, 20), `${scenario}: ${line}`).toBeLessThan(grid.left);
        }
      }
    }
  });

  it("wraps a long name at its spaces and separators, never inside a word", () => {
    expect(wrapWords("Connect orders-iceberg-sink-connector-prod")).toEqual([
      "Connect orders-",
      "iceberg-sink-",
      "connector-prod",
    ]);
    expect(wrapWords("Flink events-ingest (c7e1…)")).toEqual(["Flink events-ingest", "(c7e1…)"]);
  });
});
