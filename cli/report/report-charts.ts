// The report's charts as Vega-Lite specs, compiled and rendered to SVG in Node (vega's headless View, no
// browser) and to PNG with resvg. Residuals are computed in wasm-core; the specs only draw them. vega,
// vega-lite and resvg (a 4 MB native library) load when the first chart renders, not when the command
// starts: every other command shares this bundle.
import type { TopLevelSpec } from "vega-lite";
import { residuals as residualsOf } from "../../wasm-core/src/index.js";
import type { SourceReport } from "./collect-report.js";

export interface RenderedChart {
  /** File stem, e.g. `power-rapl-sysfs`. */
  readonly name: string;
  readonly title: string;
  readonly svg: string;
  readonly png: Uint8Array;
}

const WIDTH = 640;
const ROW_HEIGHT = 140;
const MEASURED = "measured";

const base = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: {
    font: "Liberation Sans, DejaVu Sans, sans-serif",
    axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 0 },
    legend: { labelLimit: 0 },
  },
} as const;

const label = (model: { trainer: string; chosen: boolean }) => (model.chosen ? `${model.trainer} (chosen)` : model.trainer);

/** Predicted against measured power over time, one row per component, one line per trainer's best model. */
function powerSpec(source: SourceReport): TopLevelSpec {
  const values: Array<Record<string, unknown>> = [];
  const reference = source.series[0];
  for (const series of source.series) {
    for (const { component, measured, predicted } of series.predictions) {
      series.timestamps.forEach((t, i) => {
        values.push({ time: t * 1000, component, series: label(series.model), watts: predicted[i] });
        if (series === reference) values.push({ time: t * 1000, component, series: MEASURED, watts: measured[i] });
      });
    }
  }
  return {
    ...base,
    title: `${source.energySource}: predicted vs measured power (best model of each trainer)`,
    data: { values },
    facet: { row: { field: "component", type: "nominal", title: null } },
    resolve: { scale: { y: "independent" } },
    spec: {
      width: WIDTH,
      height: ROW_HEIGHT,
      // Held-out rows are a sample of the recording: points mark the rows, the line only guides the eye.
      mark: { type: "line", strokeWidth: 1.2, point: { size: 12 } },
      encoding: {
        x: { field: "time", type: "temporal", title: "time (UTC)", axis: { format: "%H:%M" } },
        y: { field: "watts", type: "quantitative", title: "W" },
        color: { field: "series", type: "nominal", title: null, sort: [MEASURED] },
        strokeDash: { condition: { test: `datum.series === '${MEASURED}'`, value: [4, 2] }, value: [1, 0] },
      },
    },
  } as TopLevelSpec;
}

/**
 * The chosen model's prediction intervals over the scored rows, one row per calibrated component: the band
 * from lower to upper bound, the prediction, and the measured power as points (inside or outside the band).
 */
function intervalSpec(source: SourceReport, level: number): TopLevelSpec | undefined {
  const chosen = source.series[0];
  if (chosen === undefined || chosen.intervals.size === 0) return undefined;
  const values: Array<Record<string, unknown>> = [];
  for (const { component, measured, predicted } of chosen.predictions) {
    const interval = chosen.intervals.get(component);
    if (interval === undefined) continue;
    const title = `${component} (±${interval.halfWidthWatts.toFixed(2)} W, ${interval.coveredRows} of ${measured.length} rows inside)`;
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
    series.model.components.map((c) => ({ trainer: label(series.model), component: c.component, mae: c.maeWatts })),
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
      tooltip: [{ field: "trainer" }, { field: "component" }, { field: "mae", format: ".4f" }],
    },
  } as TopLevelSpec;
}

interface Residual {
  trainer: string;
  component: string;
  load: number;
  residual: number;
}

function residuals(source: SourceReport): Residual[] {
  return source.series.flatMap((series) =>
    series.predictions.flatMap(({ component, measured, predicted }) => {
      const load = series.mainFeature.get(component);
      const error = residualsOf(measured, predicted);
      return Array.from(error, (residual, i) => ({
        trainer: label(series.model),
        component: load === undefined ? component : `${component} vs ${load.name}`,
        load: load?.values[i] ?? i,
        residual,
      }));
    }),
  );
}

/** Residual (predicted - measured) against the group's main feature, per component. */
function residualSpec(source: SourceReport, values: Residual[]): TopLevelSpec {
  return {
    ...base,
    title: `${source.energySource}: error against load (predicted - measured, W)`,
    data: { values },
    facet: { row: { field: "component", type: "nominal", title: null } },
    resolve: { scale: { x: "independent", y: "independent" } },
    spec: {
      width: WIDTH,
      height: ROW_HEIGHT,
      mark: { type: "point", filled: true, size: 14, opacity: 0.6 },
      encoding: {
        x: { field: "load", type: "quantitative", title: "main feature (rate per second)" },
        y: { field: "residual", type: "quantitative", title: "W" },
        color: { field: "trainer", type: "nominal", title: null },
      },
    },
  } as TopLevelSpec;
}

/** How the residuals are distributed, per component and trainer. */
function distributionSpec(source: SourceReport, values: Residual[]): TopLevelSpec {
  return {
    ...base,
    title: `${source.energySource}: error distribution (predicted - measured, W)`,
    data: { values },
    facet: { row: { field: "component", type: "nominal", title: null } },
    resolve: { scale: { x: "independent", y: "independent" } },
    spec: {
      width: WIDTH,
      height: ROW_HEIGHT,
      mark: { type: "bar", opacity: 0.6 },
      encoding: {
        x: { field: "residual", type: "quantitative", bin: { maxbins: 40 }, title: "W" },
        y: { aggregate: "count", type: "quantitative", stack: null, title: "rows" },
        color: { field: "trainer", type: "nominal", title: null },
      },
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

/** Every chart of one source, rendered; the interval chart when the chosen model stores calibration residuals. */
export async function renderSourceCharts(source: SourceReport, intervalLevel = 0.9): Promise<RenderedChart[]> {
  const errors = residuals(source);
  const s = source.energySource;
  const charts = [
    await render(`power-${s}`, `${s}: predicted vs measured power`, powerSpec(source)),
    await render(`mae-${s}`, `${s}: MAE per trainer and component`, errorSpec(source)),
    await render(`residual-${s}`, `${s}: error against load`, residualSpec(source, errors)),
    await render(`distribution-${s}`, `${s}: error distribution`, distributionSpec(source, errors)),
  ];
  const intervals = intervalSpec(source, intervalLevel);
  if (intervals !== undefined)
    charts.push(await render(`intervals-${s}`, `${s}: prediction intervals of the chosen model`, intervals));
  return charts;
}
