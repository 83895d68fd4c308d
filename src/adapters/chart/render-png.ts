// Draws a timeline spec: Apache ECharts' server-side SVG renderer (no browser, no native canvas),
// then resvg turns the SVG into a PNG. Both libraries load on first use, so commands that never
// draw a chart do not pay for them.

import type { TimelineSpec } from "../../core/chart/timeline-spec.js";

export interface RenderedChart {
  png: Uint8Array;
  svg: string;
  /** Pixel size of the PNG. */
  width: number;
  height: number;
  renderMs: number;
}

/** Pixels per chart unit: sharp on high-density screens, still small as a file. */
const SCALE = 1.5;

type EchartsCore = typeof import("echarts/core");
let echartsReady: Promise<EchartsCore> | undefined;

async function loadEcharts(): Promise<EchartsCore> {
  echartsReady ??= (async () => {
    const [core, charts, components, renderers] = await Promise.all([
      import("echarts/core"),
      import("echarts/charts"),
      import("echarts/components"),
      import("echarts/renderers"),
    ]);
    core.use([
      charts.ScatterChart,
      charts.LineChart,
      components.GridComponent,
      components.LegendComponent,
      components.TitleComponent,
      components.MarkAreaComponent,
      components.MarkLineComponent,
      renderers.SVGRenderer,
    ]);
    return core;
  })();
  return echartsReady;
}

async function renderSvg(spec: TimelineSpec): Promise<string> {
  const echarts = await loadEcharts();
  const chart = echarts.init(null, null, {
    renderer: "svg",
    ssr: true,
    width: spec.width,
    height: spec.height,
  });
  try {
    chart.setOption(spec.option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

export async function renderPng(spec: TimelineSpec): Promise<RenderedChart> {
  const started = performance.now();
  const svg = await renderSvg(spec);
  const { Resvg } = await import("@resvg/resvg-js");
  const image = new Resvg(svg, {
    fitTo: { mode: "zoom", value: SCALE },
    background: "#ffffff",
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  }).render();
  const png = image.asPng();
  return {
    png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength),
    svg,
    width: image.width,
    height: image.height,
    renderMs: Math.round(performance.now() - started),
  };
}
