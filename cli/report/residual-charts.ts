// The residual charts: error against the group's main feature and the error distribution, per component
// (small multiples per component and trainer beyond MAX_OVERLAID trainers). Residuals come from wasm-core.
import type { TopLevelSpec } from "vega-lite";
import { residuals as residualsOf } from "../../wasm-core/src/index.js";
import { base, componentLayout, label, panelOf, shown } from "./chart-layout.js";
import type { SourceReport } from "./collect-report.js";

export interface Residual {
  trainer: string;
  component: string;
  panel: string;
  load: number;
  residual: number;
}

function residualName(series: SourceReport["series"][number], component: string): string {
  const load = series.mainFeature.get(component);
  return load === undefined ? component : `${component} vs ${load.name}`;
}

export function residuals(source: SourceReport): Residual[] {
  return source.series.flatMap((series) =>
    series.predictions
      .filter((p) => shown(source)(p.component))
      .flatMap(({ component, measured, predicted }) => {
        const load = series.mainFeature.get(component);
        const error = residualsOf(measured, predicted);
        const name = residualName(series, component);
        return Array.from(error, (residual, i) => ({
          trainer: label(series.model),
          component: name,
          panel: panelOf(name, label(series.model)),
          load: load?.values[i] ?? i,
          residual,
        }));
      }),
  );
}

// Both residual charts: one panel per component (and trainer, beyond MAX_OVERLAID), scales of their own.
function residualChart(source: SourceReport, values: Residual[], title: string, mark: object, encoding: object): TopLevelSpec {
  const first = source.series[0];
  const layout = componentLayout(source, (c) => (first === undefined ? c : residualName(first, c)));
  return {
    ...base,
    title: `${source.energySource}: ${title} (predicted - measured, W)`,
    data: { values },
    ...layout.facet,
    resolve: { scale: { x: "independent", y: "independent" } },
    spec: { width: layout.width, height: layout.height, mark, encoding },
  } as TopLevelSpec;
}

/** Residual (predicted - measured) against the group's main feature, per component. */
export function residualSpec(source: SourceReport, values: Residual[]): TopLevelSpec {
  return residualChart(
    source,
    values,
    "error against load",
    { type: "point", filled: true, size: 14, opacity: 0.6 },
    {
      x: { field: "load", type: "quantitative", title: "main feature (rate per second)" },
      y: { field: "residual", type: "quantitative", title: "W" },
      color: { field: "trainer", type: "nominal", title: null },
    },
  );
}

/** How the residuals are distributed, per component and trainer. */
export function distributionSpec(source: SourceReport, values: Residual[]): TopLevelSpec {
  return residualChart(
    source,
    values,
    "error distribution",
    { type: "bar", opacity: 0.6 },
    {
      x: { field: "residual", type: "quantitative", bin: { maxbins: 40 }, title: "W" },
      y: { aggregate: "count", type: "quantitative", stack: null, title: "rows" },
      color: { field: "trainer", type: "nominal", title: null },
    },
  );
}
