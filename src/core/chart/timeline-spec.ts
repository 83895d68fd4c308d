// The timeline model as an Apache ECharts option: plain data, no library import, so it stays in
// the pure core and tests can count what will be drawn. The adapter hands it to ECharts' server
// side SVG renderer. Sized for Slack's inline preview: wide and short, large type, few colours.
// Colours are the Okabe-Ito palette (safe for the common colour-vision deficiencies), and every
// meaning that matters also has its own shape (failures are crosses, the change a dashed line).

import type { ChartOperation, TimelineChart, TrendSeries } from "./timeline.js";

export const OPERATION_COLOURS: Record<ChartOperation, string> = {
  append: "#0072B2",
  overwrite: "#E69F00",
  replace: "#009E73",
  delete: "#CC79A7",
  other: "#777777",
};
export const FAILURE_COLOUR = "#D55E00";
export const CHECKPOINT_OK_COLOUR = "#9A9A9A";
const TREND_COLOURS = ["#0072B2", "#E69F00"];
const CHANGE_COLOUR = "#000000";
const RECOVERY_COLOUR = "#009E73";
const WINDOW_COLOUR = "rgba(213,94,0,0.10)";

export const FAILURE_SERIES = "commit failed";
export const CHECKPOINT_OK_SERIES = "checkpoint completed";
export const CHECKPOINT_FAILED_SERIES = "checkpoint failed";
export const CHECKPOINT_ROW = "checkpoints";
export const WINDOW_SERIES = "diagnosis window";

const FONT = "DejaVu Sans, Verdana, sans-serif";
const WIDTH = 780;
const TITLE_H = 92;
const LANE_H = 46;
const STRIP_H = 22;
const AXIS_H = 36;
const MARKER_LEGEND_H = 28;
const TREND_H = 120;
const LEFT = 190;
const RIGHT = 56;

/** Plain JSON in the shape ECharts reads; typed loosely on purpose (the library owns the schema). */
export type ChartOption = Record<string, unknown>;

export interface TimelineSpec {
  width: number;
  height: number;
  option: ChartOption;
}

type Row = { id: string; label: string };

/** The y-axis rows, top to bottom: each lane, the checkpoint strip right under the writer's. */
export function timelineRows(chart: TimelineChart): Row[] {
  const rows: Row[] = [];
  for (const lane of chart.lanes) {
    rows.push({ id: lane.id, label: lane.writer ? `${lane.label}\n(writer)` : lane.label });
    if (chart.checkpointLane === lane.id) rows.push({ id: CHECKPOINT_ROW, label: CHECKPOINT_ROW });
  }
  return rows;
}

export function timelineSpec(chart: TimelineChart): TimelineSpec {
  const rows = timelineRows(chart);
  const labelOf = new Map(rows.map((r) => [r.id, r.label]));
  const laneRows = chart.lanes.length;
  const stripRows = rows.length - laneRows;
  const lanesHeight = Math.max(1, laneRows) * LANE_H + stripRows * STRIP_H;
  const trends = chart.trends.slice(0, 2);
  const titleH = TITLE_H + (chart.change || chart.recovery ? MARKER_LEGEND_H : 0);
  const height = titleH + lanesHeight + AXIS_H + (trends.length > 0 ? TREND_H + AXIS_H : 0) + 4;

  const xAxisBase = {
    type: "time",
    min: chart.fromMs,
    max: chart.toMs,
    axisLabel: { fontSize: 16, color: "#333", formatter: "{HH}:{mm}", hideOverlap: true },
    axisLine: { lineStyle: { color: "#888" } },
    splitLine: { show: true, lineStyle: { color: "#EEEEEE" } },
  };
  const series: ChartOption[] = [];
  const legend: string[] = [];

  for (const op of ["append", "overwrite", "replace", "delete", "other"] as const) {
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
      xAxisIndex: 0,
      yAxisIndex: 0,
      z: 4,
      silent: true,
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
      xAxisIndex: 0,
      yAxisIndex: 0,
      z: 5,
      silent: true,
    });
  }
  const checkpointSeries = (ok: boolean): ChartOption => ({
    name: ok ? CHECKPOINT_OK_SERIES : CHECKPOINT_FAILED_SERIES,
    type: "scatter",
    symbol: ok ? "rect" : "triangle",
    symbolSize: ok ? [3, 10] : 11,
    itemStyle: { color: ok ? CHECKPOINT_OK_COLOUR : FAILURE_COLOUR },
    data: chart.checkpoints.filter((c) => c.ok === ok).map((c) => [c.atMs, CHECKPOINT_ROW]),
    xAxisIndex: 0,
    yAxisIndex: 0,
    silent: true,
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
      xAxisIndex: 0,
      yAxisIndex: 0,
      silent: true,
      markArea: {
        silent: true,
        itemStyle: { color: WINDOW_COLOUR },
        label: { show: true, position: "top", formatter: WINDOW_SERIES, fontSize: 14, color: "#A04000" },
        data: [[{ xAxis: chart.window.fromMs }, { xAxis: chart.window.toMs }]],
      },
    });
  }
  const markerLegend: ChartOption[] = [];
  const marker = (name: string, atMs: number, colour: string, type: "dashed" | "solid", width: number) => {
    markerLegend.push({ name, icon: "rect", itemStyle: { color: colour } });
    series.push({
      name,
      type: "line",
      data: [],
      xAxisIndex: 0,
      yAxisIndex: 0,
      silent: true,
      symbol: "none",
      lineStyle: { color: colour, type, width },
      itemStyle: { color: colour },
      markLine: {
        silent: true,
        symbol: "none",
        label: { show: false },
        lineStyle: { color: colour, type, width },
        data: [{ xAxis: atMs }],
      },
    });
  };
  if (chart.change) marker(changeName(chart.change), chart.change.atMs, CHANGE_COLOUR, "dashed", 2);
  if (chart.recovery) marker(changeName(chart.recovery), chart.recovery.atMs, RECOVERY_COLOUR, "solid", 2);

  const grids: ChartOption[] = [
    { left: LEFT, right: RIGHT, top: titleH, height: lanesHeight, containLabel: false },
  ];
  const xAxes: ChartOption[] = [
    { ...xAxisBase, gridIndex: 0, name: "UTC", nameGap: 8, nameTextStyle: { fontSize: 13, color: "#555" } },
  ];
  const yAxes: ChartOption[] = [
    {
      type: "category",
      gridIndex: 0,
      inverse: true,
      data: rows.map((r) => r.label),
      axisLabel: { fontSize: 16, color: "#222" },
      axisTick: { show: false },
      axisLine: { lineStyle: { color: "#888" } },
      splitLine: { show: true, lineStyle: { color: "#F4F4F4" } },
    },
  ];

  const trendTitles: ChartOption[] = [];
  if (trends.length > 0) {
    const top = titleH + lanesHeight + AXIS_H + 26;
    grids.push({ left: LEFT, right: RIGHT, top, height: TREND_H - 34 });
    xAxes.push({ ...xAxisBase, gridIndex: 1, axisLabel: { ...xAxisBase.axisLabel, show: true } });
    trends.forEach((trend, i) => {
      const name = trendName(trend);
      trendTitles.push({
        text: name,
        top: top - 30,
        ...(i === 0 ? { left: LEFT - 8 } : { right: RIGHT - 8 }),
        textStyle: { fontSize: 15, fontWeight: "normal", color: TREND_COLOURS[i] },
      });
      yAxes.push({
        type: "value",
        gridIndex: 1,
        position: i === 0 ? "left" : "right",
        splitNumber: 2,
        axisLabel: { fontSize: 13, color: TREND_COLOURS[i] },
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
        textStyle: { fontSize: 18, fontWeight: "bold", color: "#111" },
      },
      ...trendTitles,
    ],
    legend: [
      {
        data: legend,
        top: 40,
        left: 12,
        right: 12,
        itemGap: 30,
        itemWidth: 14,
        itemHeight: 12,
        textStyle: { fontSize: 15, color: "#333" },
      },
      // The change and the recovery get their own row: their names are long.
      ...(markerLegend.length > 0
        ? [
            {
              data: markerLegend,
              top: 40 + MARKER_LEGEND_H,
              left: 12,
              right: 12,
              itemGap: 64,
              itemWidth: 22,
              itemHeight: 4,
              textStyle: { fontSize: 15, color: "#111" },
            },
          ]
        : []),
    ],
    grid: grids,
    xAxis: xAxes,
    yAxis: yAxes,
    series,
  };
  return { width: WIDTH, height, option };
}

/** "change 22:26: raise commit retries" — the legend names the line and its UTC time. */
export function changeName(marker: { atMs: number; label: string }): string {
  return `${marker.label} ${new Date(marker.atMs).toISOString().slice(11, 16)}`;
}

function trendName(trend: TrendSeries): string {
  // "files per commit" already says its unit; time units are named.
  return trend.unit === "s" || trend.unit === "min" ? `${trend.label} (${trend.unit})` : trend.label;
}
