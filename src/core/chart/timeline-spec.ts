// The timeline model as an Apache ECharts option: plain data, no library import, so it stays in
// the pure core and tests can count what will be drawn. The adapter hands it to ECharts' server
// side SVG renderer. Sized for Slack's inline preview (about 360 px wide): type large enough to read
// there, labels wrapped at word boundaries instead of cut, few colours. Colours are the Okabe-Ito
// palette (safe for the common colour-vision deficiencies), and every meaning that matters also has
// its own shape (failures are crosses, the change a dashed line, the recovery a line with a dot).

import { utcHourMinute } from "../words/clock.js";
import { CHART_OPERATIONS, type ChartOperation, type TimelineChart, type TrendSeries } from "./timeline.js";

export const OPERATION_COLOURS: Record<ChartOperation, string> = {
  append: "#0072B2",
  overwrite: "#E69F00",
  replace: "#009E73",
  delete: "#CC79A7",
  other: "#777777",
};
export const FAILURE_COLOUR = "#D55E00";
const CHECKPOINT_OK_COLOUR = "#9A9A9A";
const TREND_COLOURS = ["#0072B2", "#E69F00"];
const CHANGE_COLOUR = "#000000";
/** Sky blue: not the green of a `replace` commit, so a compaction never reads as the recovery. */
export const RECOVERY_COLOUR = "#56B4E9";
export const RECOVERY_SYMBOL = "circle";
const WINDOW_COLOUR = "rgba(213,94,0,0.10)";
const SILENT_COLOUR = "#A04000";

export const FAILURE_SERIES = "commit failed";
export const CHECKPOINT_OK_SERIES = "checkpoint completed";
export const CHECKPOINT_FAILED_SERIES = "checkpoint failed";
export const CHECKPOINT_ROW = "checkpoints";
const WINDOW_SERIES = "diagnosis window";

const FONT = "DejaVu Sans, Verdana, sans-serif";
/** Chart units; Slack's preview shows it about 360 px wide, so 18-unit type reads as 10 px there. */
const WIDTH = 640;
export const PREVIEW_WIDTH = 360;
const MIN_FONT = 18;
const TITLE_FONT = 22;
const LABEL_FONT = 20;
const SMALL_FONT = MIN_FONT;
/** DejaVu Sans averages about this many font sizes per character: enough to size the label column. */
const CHAR_WIDTH = 0.62;
const TITLE_H = 40;
const ROW_H = 30;
const LANE_LINE_H = 24;
const STRIP_H = 26;
const AXIS_H = 40;
const TREND_H = 130;
const RIGHT = 24;
const MIN_LEFT = 110;
/** A lane label line longer than this many characters wraps at a space. */
const LABEL_LINE = 20;

/** Plain JSON in the shape ECharts reads; typed loosely on purpose (the library owns the schema). */
type ChartOption = Record<string, unknown>;

export interface TimelineSpec {
  width: number;
  height: number;
  option: ChartOption;
}

type Row = { id: string; label: string };

/**
 * Splits text at spaces into lines of at most `max` characters. A longer word (a connector name)
 * breaks only after its own separators (- _ .), so no word part is cut.
 */
export function wrapWords(text: string, max = LABEL_LINE): string[] {
  const pieces = text
    .split(/\s+/)
    .filter(Boolean)
    .flatMap((word) => (word.length <= max ? [{ text: word, space: true }] : separated(word)));
  const lines: string[] = [];
  pieces.forEach((piece, i) => {
    const last = lines.at(-1);
    const joiner = i > 0 && piece.space ? " " : "";
    if (last !== undefined && last.length + joiner.length + piece.text.length <= max)
      lines[lines.length - 1] = `${last}${joiner}${piece.text}`;
    else lines.push(piece.text);
  });
  return lines;
}

/** "orders-iceberg-sink" → "orders-", "iceberg-", "sink"; the first piece follows a space. */
function separated(word: string): Array<{ text: string; space: boolean }> {
  return (word.match(/[^-_.]+[-_.]*|[-_.]+/g) ?? [word]).map((text, i) => ({ text, space: i === 0 }));
}

/** The y-axis rows, top to bottom: each lane, the checkpoint strip right under the writer's. */
export function timelineRows(chart: TimelineChart): Row[] {
  const rows: Row[] = [];
  for (const lane of chart.lanes) {
    const lines = wrapWords(lane.label);
    if (lane.writer) lines.push(failingIn(chart, lane.id) ? "(failing writer)" : "(writer)");
    rows.push({ id: lane.id, label: lines.join("\n") });
    if (chart.checkpointLane === lane.id) rows.push({ id: CHECKPOINT_ROW, label: CHECKPOINT_ROW });
  }
  return rows;
}

/**
 * Whether the picture shows the writer failing: a failure with no own commit after it, or (with no
 * failure drawn) no commit since the window opened. A writer committing after its failure (a
 * resubmitted job that commits again) is a writer, not a failing one.
 */
function failingIn(chart: TimelineChart, laneId: string): boolean {
  const lastOwn = Math.max(...chart.marks.filter((m) => m.lane === laneId).map((m) => m.atMs));
  const failures = chart.failures.filter((f) => f.lane === laneId).map((f) => f.atMs);
  if (failures.length > 0) return lastOwn < Math.max(...failures);
  if (chart.failures.length > 0) return true;
  return chart.window !== undefined && lastOwn <= chart.window.fromMs;
}

/** Estimated width of a line of text in chart units. */
export function textWidth(text: string, fontSize: number): number {
  return Math.ceil(text.length * fontSize * CHAR_WIDTH);
}

/** Legend entries packed into rows that fit the width (one legend component per row). */
function legendRows(names: string[], iconWidth: number, gap: number): string[][] {
  const rows: string[][] = [];
  let used = 0;
  const room = WIDTH - 24;
  for (const name of names) {
    const w = iconWidth + 6 + textWidth(name, SMALL_FONT) + gap;
    const row = rows.at(-1);
    if (row && used + w <= room) {
      row.push(name);
      used += w;
    } else {
      rows.push([name]);
      used = w;
    }
  }
  return rows;
}

export function timelineSpec(chart: TimelineChart): TimelineSpec {
  const rows = timelineRows(chart);
  const labelOf = new Map(rows.map((r) => [r.id, r.label]));
  const longestLine = Math.max(
    ...rows.flatMap((r) => r.label.split("\n").map((line) => textWidth(line, LABEL_FONT))),
    0,
  );
  const left = Math.min(Math.max(MIN_LEFT, longestLine + 18), Math.floor(WIDTH * 0.5));
  const rowHeight = (r: Row) =>
    r.id === CHECKPOINT_ROW ? STRIP_H : Math.max(46, r.label.split("\n").length * LANE_LINE_H + 10);
  // Category rows share the grid evenly: every row gets the height of the tallest.
  const laneRowH = Math.max(...rows.filter((r) => r.id !== CHECKPOINT_ROW).map(rowHeight), 46);
  const stripRows = rows.filter((r) => r.id === CHECKPOINT_ROW).length;
  const lanesHeight = Math.max(1, rows.length) * (stripRows > 0 ? Math.max(laneRowH, STRIP_H) : laneRowH);
  const trends = chart.trends.slice(0, 2);

  const xAxisBase = {
    type: "time",
    min: chart.fromMs,
    max: chart.toMs,
    splitNumber: 4,
    axisLabel: { fontSize: SMALL_FONT, color: "#333", formatter: "{HH}:{mm}", hideOverlap: true },
    axisLine: { lineStyle: { color: "#888" } },
    splitLine: { show: true, lineStyle: { color: "#EEEEEE" } },
  };
  const series: ChartOption[] = [];
  const legend: string[] = [];
  // Everything but the trends is drawn on the lanes and answers no pointer.
  const onLanes = { xAxisIndex: 0, yAxisIndex: 0, silent: true };

  for (const op of CHART_OPERATIONS) {
    const data = chart.marks.filter((m) => m.operation === op).map((m) => [m.atMs, labelOf.get(m.lane)]);
    if (data.length === 0) continue;
    legend.push(op);
    series.push({
      name: op,
      type: "scatter",
      symbol: "rect",
      symbolSize: [3, 24],
      itemStyle: { color: OPERATION_COLOURS[op] },
      data,
      ...onLanes,
      z: 4,
    });
  }
  if (chart.failures.length > 0) {
    legend.push(FAILURE_SERIES);
    series.push({
      name: FAILURE_SERIES,
      type: "scatter",
      // A bold "x": readable without colour.
      symbol: "path://M2,0 L5,3 L8,0 L10,2 L7,5 L10,8 L8,10 L5,7 L2,10 L0,8 L3,5 L0,2 Z",
      symbolSize: 16,
      itemStyle: { color: FAILURE_COLOUR },
      data: chart.failures.map((f) => [f.atMs, labelOf.get(f.lane)]),
      ...onLanes,
      z: 5,
    });
  }
  const checkpointSeries = (ok: boolean): ChartOption => ({
    name: ok ? CHECKPOINT_OK_SERIES : CHECKPOINT_FAILED_SERIES,
    type: "scatter",
    symbol: ok ? "rect" : "triangle",
    symbolSize: ok ? [3, 10] : 11,
    itemStyle: { color: ok ? CHECKPOINT_OK_COLOUR : FAILURE_COLOUR },
    data: chart.checkpoints.filter((c) => c.ok === ok).map((c) => [c.atMs, CHECKPOINT_ROW]),
    ...onLanes,
  });
  if (chart.checkpoints.some((c) => c.ok)) {
    legend.push(CHECKPOINT_OK_SERIES);
    series.push(checkpointSeries(true));
  }
  if (chart.checkpoints.some((c) => !c.ok)) {
    legend.push(CHECKPOINT_FAILED_SERIES);
    series.push(checkpointSeries(false));
  }

  // The window, the change and the recovery ride on carrier series without points, so they draw
  // even when no commit lands in the span. The change and the recovery are named in the legend
  // (with their line style) rather than on the lines, where labels would collide.
  if (chart.window) {
    series.push({
      name: WINDOW_SERIES,
      type: "scatter",
      data: [],
      itemStyle: { color: "rgba(213,94,0,0.30)" },
      ...onLanes,
      markArea: {
        silent: true,
        itemStyle: { color: WINDOW_COLOUR },
        data: [[{ xAxis: chart.window.fromMs }, { xAxis: chart.window.toMs }]],
      },
    });
    legend.push(WINDOW_SERIES);
  }
  const markerLegend: ChartOption[] = [];
  const marker = (
    name: string,
    atMs: number,
    colour: string,
    type: "dashed" | "solid",
    width: number,
    end: "none" | typeof RECOVERY_SYMBOL,
  ) => {
    markerLegend.push({ name, icon: end === "none" ? "rect" : end, itemStyle: { color: colour } });
    const lineStyle = { color: colour, type, width };
    series.push({
      name,
      type: "line",
      data: [],
      ...onLanes,
      symbol: "none",
      lineStyle,
      itemStyle: { color: colour },
      markLine: {
        silent: true,
        symbol: ["none", end],
        symbolSize: 12,
        label: { show: false },
        lineStyle,
        data: [{ xAxis: atMs }],
      },
    });
  };
  if (chart.change) marker(changeName(chart.change), chart.change.atMs, CHANGE_COLOUR, "dashed", 2, "none");
  if (chart.recovery)
    marker(changeName(chart.recovery), chart.recovery.atMs, RECOVERY_COLOUR, "solid", 3, RECOVERY_SYMBOL);

  // Top to bottom: title, legend rows, the change and the recovery (one row each, their names are
  // long), the sources that did not answer, then the lanes.
  const legends: ChartOption[] = [];
  let top = TITLE_H;
  for (const row of legendRows(legend, 14, 22)) {
    legends.push({
      data: row,
      top,
      left: 12,
      itemGap: 22,
      itemWidth: 14,
      itemHeight: 12,
      textStyle: { fontSize: SMALL_FONT, color: "#333" },
    });
    top += ROW_H;
  }
  for (const entry of markerLegend) {
    legends.push({
      data: [entry],
      top,
      left: 12,
      itemWidth: 22,
      itemHeight: entry.icon === "rect" ? 4 : 12,
      textStyle: { fontSize: SMALL_FONT, color: "#111" },
    });
    top += ROW_H;
  }
  const notes: ChartOption[] = [];
  for (const source of chart.silentSources ?? []) {
    notes.push({
      text: silentNote(source),
      left: 12,
      top,
      textStyle: { fontSize: SMALL_FONT, fontWeight: "bold", color: SILENT_COLOUR },
    });
    top += ROW_H;
  }
  const titleH = top + 10;
  const height = titleH + lanesHeight + AXIS_H + (trends.length > 0 ? TREND_H + AXIS_H : 0) + 4;

  const grids: ChartOption[] = [
    { left, right: RIGHT, top: titleH, height: lanesHeight, containLabel: false },
  ];
  const xAxes: ChartOption[] = [
    {
      ...xAxisBase,
      gridIndex: 0,
      name: "UTC",
      nameGap: 4,
      nameTextStyle: { fontSize: SMALL_FONT, color: "#555" },
      nameLocation: "start",
    },
  ];
  const yAxes: ChartOption[] = [
    {
      type: "category",
      gridIndex: 0,
      inverse: true,
      data: rows.map((r) => r.label),
      axisLabel: { fontSize: LABEL_FONT, lineHeight: LANE_LINE_H, color: "#222" },
      axisTick: { show: false },
      axisLine: { lineStyle: { color: "#888" } },
      splitLine: { show: true, lineStyle: { color: "#F4F4F4" } },
    },
  ];

  const trendTitles: ChartOption[] = [];
  if (trends.length > 0) {
    const trendTop = titleH + lanesHeight + AXIS_H + 30;
    grids.push({ left, right: RIGHT + (trends.length > 1 ? 40 : 0), top: trendTop, height: TREND_H - 38 });
    xAxes.push({ ...xAxisBase, gridIndex: 1, axisLabel: { ...xAxisBase.axisLabel, show: true } });
    trends.forEach((trend, i) => {
      const name = trendName(trend);
      trendTitles.push({
        text: name,
        top: trendTop - 32,
        ...(i === 0 ? { left: 12 } : { right: RIGHT }),
        textStyle: { fontSize: SMALL_FONT, fontWeight: "normal", color: TREND_COLOURS[i] },
      });
      yAxes.push({
        type: "value",
        gridIndex: 1,
        position: i === 0 ? "left" : "right",
        splitNumber: 2,
        axisLabel: { fontSize: SMALL_FONT, color: TREND_COLOURS[i] },
        splitLine: { show: i === 0, lineStyle: { color: "#EEEEEE" } },
        axisLine: { show: true, lineStyle: { color: TREND_COLOURS[i] } },
      });
      series.push({
        name,
        type: "line",
        xAxisIndex: 1,
        yAxisIndex: i + 1,
        showSymbol: true,
        symbol: i === 0 ? "circle" : "diamond",
        symbolSize: 6,
        lineStyle: { width: 2.5, color: TREND_COLOURS[i], type: i === 0 ? "solid" : "dashed" },
        itemStyle: { color: TREND_COLOURS[i] },
        data: trend.points.map((p) => [p.atMs, p.value]),
        silent: true,
      });
    });
  }

  const option: ChartOption = {
    animation: false,
    useUTC: true,
    backgroundColor: "#FFFFFF",
    textStyle: { fontFamily: FONT },
    title: [
      {
        text: `Commits to ${chart.table}`,
        left: 12,
        top: 8,
        textStyle: { fontSize: TITLE_FONT, fontWeight: "bold", color: "#111" },
      },
      ...notes,
      ...trendTitles,
    ],
    legend: legends,
    grid: grids,
    xAxis: xAxes,
    yAxis: yAxes,
    series,
  };
  return { width: WIDTH, height, option };
}

/** "No answer from Flink REST: not drawn" — a silent source is said on the picture itself. */
export function silentNote(source: string): string {
  return `No answer from ${source}: its part is not drawn`;
}

/** "change 22:26: raise commit retries" — the legend names the line and its UTC time. */
function changeName(marker: { atMs: number; label: string }): string {
  return `${marker.label} ${utcHourMinute(marker.atMs)}`;
}

function trendName(trend: TrendSeries): string {
  // "files per commit" already says its unit; time units are named.
  return trend.unit === "s" || trend.unit === "min" ? `${trend.label} (${trend.unit})` : trend.label;
}
