// The report's charts as Vega-Lite specs, compiled and rendered to SVG in Node (vega's headless View, no
// browser) and to PNG with resvg. Residuals are computed in wasm-core; the specs only draw them. vega,
// vega-lite and resvg (a 4 MB native library) load when the first chart renders, not when the command
// starts: every other command shares this bundle. Components measured at 0 W throughout are left out; with
// more than MAX_OVERLAID trainers the over-time and residual charts become small multiples (one panel per
// component and trainer) instead of overlaid lines nobody can tell apart.
import type { TopLevelSpec } from "vega-lite";
import { significant } from "../../services/domain/significant-digits.js";
import { base, componentLayout, label, MEASURED, panelOf, ROW_HEIGHT, shown, smallMultiples, WIDTH } from "./chart-layout.js";
import type { SourceReport } from "./collect-report.js";
import { distributionSpec, residualSpec, residuals } from "./residual-charts.js";

export interface RenderedChart {
  /** File stem, e.g. `power-rapl-sysfs`. */
  readonly name: string;
  readonly title: string;
  readonly svg: string;
  readonly png: Uint8Array;
}

/** Predicted against measured power over time, one row per component, one line per trainer's best model. */
function powerSpec(source: SourceReport): TopLevelSpec {
  const values: Array<Record<string, unknown>> = [];
  const reference = source.series[0];
  const many = smallMultiples(source);
  for (const series of source.series) {
    for (const { component, measured, predicted } of series.predictions.filter((p) => shown(source)(p.component))) {
      const panel = panelOf(component, label(series.model));
      series.timestamps.forEach((t, i) => {
        values.push({ time: t * 1000, component, panel, series: many ? "predicted" : label(series.model), watts: predicted[i] });
        if (many || series === reference) values.push({ time: t * 1000, component, panel, series: MEASURED, watts: measured[i] });
      });
    }
  }
  const encoding = {
    x: { field: "time", type: "temporal", title: "time (UTC)", axis: { format: "%H:%M" } },
    y: { field: "watts", type: "quantitative", title: "W" },
    color: { field: "series", type: "nominal", title: null, sort: [MEASURED] },
    strokeDash: { condition: { test: `datum.series === '${MEASURED}'`, value: [4, 2] }, value: [1, 0] },
  };
  // Held-out rows are a sample of the recording: points mark the rows, the line only guides the eye.
  const mark = { type: "line", strokeWidth: 1.2, point: { size: 12 } };
  const layout = componentLayout(source);
  return {
    ...base,
    title: `${source.energySource}: predicted vs measured power (best model of each trainer${many ? ", one panel each" : ""})`,
    data: { values },
    ...layout.facet,
    resolve: { scale: { y: "independent" } },
    spec: { width: layout.width, height: layout.height, mark, encoding },
  } as TopLevelSpec;
}

/**
 * The chosen model's prediction intervals over the scored rows, one row per calibrated component: the band
 * from lower to upper bound, the prediction, and the measured power as points (inside or outside the band).
 */
function intervalSpec(source: SourceReport, level: number): TopLevelSpec | undefined {
  const chosen = source.series[0];
  if (chosen === undefined || chosen.intervals.size === 0) return undefined;
  if (![...chosen.intervals.keys()].some(shown(source))) return undefined;
  const values: Array<Record<string, unknown>> = [];
  for (const { component, measured, predicted } of chosen.predictions) {
    const interval = chosen.intervals.get(component);
    if (interval === undefined || !shown(source)(component)) continue;
    const title = `${component} (±${significant(interval.halfWidthWatts)} W, ${interval.coveredRows} of ${measured.length} rows inside)`;
    chosen.timestamps.forEach((t, i) => {
      const inside = measured[i]! >= interval.lowerWatts[i]! && measured[i]! <= interval.upperWatts[i]!;
      values.push({
        time: t * 1000,
        component: title,
        lower: interval.lowerWatts[i],
        upper: interval.upperWatts[i],
        predicted: predicted[i],
        measured: measured[i],
        where: inside ? "measured, inside" : "measured, outside",
      });
    });
  }
  const x = { field: "time", type: "temporal", title: "time (UTC)", axis: { format: "%H:%M" } } as const;
  return {
    ...base,
    title: `${source.energySource}: ${Math.round(level * 100)} % prediction intervals of ${label(chosen.model)} (split conformal)`,
    data: { values },
    facet: { row: { field: "component", type: "nominal", title: null, header: { labelAngle: 0, labelAlign: "left" } } },
    resolve: { scale: { y: "independent" } },
    spec: {
      width: WIDTH,
      height: ROW_HEIGHT,
      layer: [
        {
          mark: { type: "area", opacity: 0.25, color: "#4c78a8" },
          encoding: { x, y: { field: "lower", type: "quantitative", title: "W" }, y2: { field: "upper" } },
        },
        {
          mark: { type: "line", strokeWidth: 1.2, color: "#4c78a8" },
          encoding: { x, y: { field: "predicted", type: "quantitative" } },
        },
        {
          mark: { type: "point", filled: true, size: 18 },
          encoding: {
            x,
            y: { field: "measured", type: "quantitative" },
            color: {
              field: "where",
              type: "nominal",
              title: null,
              scale: { domain: ["measured, inside", "measured, outside"], range: ["#222222", "#e45756"] },
            },
          },
        },
      ],
    },
  } as TopLevelSpec;
}

/** MAE per trainer (its best model) and component, the chosen model marked. */
function errorSpec(source: SourceReport): TopLevelSpec {
  const values = source.series.flatMap((series) =>
    series.model.components
      .filter((c) => shown(source)(c.component))
      .map((c) => ({ trainer: label(series.model), component: c.component, mae: c.maeWatts })),
  );
  return {
    ...base,
    title: `${source.energySource}: MAE per trainer and component (W)`,
    data: { values },
    width: WIDTH,
    height: 220,
    mark: "bar",
    encoding: {
      x: {
        field: "trainer",
        type: "nominal",
        title: null,
        sort: source.series.map((s) => label(s.model)),
        axis: { labelAngle: -20 },
      },
      xOffset: { field: "component", type: "nominal" },
      y: { field: "mae", type: "quantitative", title: "MAE (W)" },
      color: { field: "component", type: "nominal", title: "component" },
      tooltip: [{ field: "trainer" }, { field: "component" }, { field: "mae", format: ".3~r" }],
    },
  } as TopLevelSpec;
}

const renderers = async () => {
  const [{ Resvg }, vega, { compile }] = await Promise.all([import("@resvg/resvg-js"), import("vega"), import("vega-lite")]);
  return { Resvg, vega, compile };
};
let loading: ReturnType<typeof renderers> | undefined;

async function render(name: string, title: string, spec: TopLevelSpec): Promise<RenderedChart> {
  const { Resvg, vega, compile } = await (loading ??= renderers());
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    const png = new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: "Liberation Sans" } }).render().asPng();
    return { name, title, svg, png };
  } finally {
    view.finalize();
  }
}

/** Every chart of one source in page order (MAE, power, intervals, residuals), rendered; the interval chart when the chosen model stores calibration residuals. */
export async function renderSourceCharts(source: SourceReport, intervalLevel = 0.9): Promise<RenderedChart[]> {
  const errors = residuals(source);
  const s = source.energySource;
  const charts = [
    await render(`mae-${s}`, `${s}: MAE per trainer and component`, errorSpec(source)),
    await render(`power-${s}`, `${s}: predicted vs measured power`, powerSpec(source)),
  ];
  const intervals = intervalSpec(source, intervalLevel);
  if (intervals !== undefined)
    charts.push(await render(`intervals-${s}`, `${s}: prediction intervals of the chosen model`, intervals));
  charts.push(
    await render(`residual-${s}`, `${s}: error against load`, residualSpec(source, errors)),
    await render(`distribution-${s}`, `${s}: error distribution`, distributionSpec(source, errors)),
  );
  return charts;
}
