// What the report's charts share: sizes, the Vega-Lite base, trainer labels, which components are drawn
// (not those measured at 0 W throughout) and the small-multiples layout used beyond MAX_OVERLAID trainers.
import type { SourceReport } from "./collect-report.js";

export const WIDTH = 640;
export const ROW_HEIGHT = 140;
export const MEASURED = "measured";

export const base = {
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  background: "white",
  config: {
    font: "Liberation Sans, DejaVu Sans, sans-serif",
    axis: { labelFontSize: 11, titleFontSize: 12, labelLimit: 0 },
    legend: { labelLimit: 0 },
  },
} as const;

export const label = (model: { trainer: string; chosen: boolean }) =>
  model.chosen ? `${model.trainer} (chosen)` : model.trainer;

/** More trainers than this are drawn as small multiples. */
export const MAX_OVERLAID = 3;
const PANEL_WIDTH = 250;
const PANEL_HEIGHT = 110;
const PANEL_COLUMNS = 3;

export const smallMultiples = (source: SourceReport) => source.series.length > MAX_OVERLAID;
export const shown = (source: SourceReport) => (component: string) => !source.emptyComponents.includes(component);
export const panelOf = (component: string, trainer: string) => `${component}: ${trainer}`;

/** The panels in page order: components in source order, trainers best first. */
function panelOrder(source: SourceReport, component: (c: string) => string = (c) => c): string[] {
  const components = (source.series[0]?.predictions ?? []).map((p) => p.component).filter(shown(source));
  return components.flatMap((c) => source.series.map((series) => panelOf(component(c), label(series.model))));
}

/**
 * The facet (spread into the spec) and panel size of a chart drawn per component: a row per component, or
 * small multiples beyond MAX_OVERLAID trainers (panel titles from `component`, by default the component).
 */
export function componentLayout(source: SourceReport, component?: (c: string) => string) {
  if (!smallMultiples(source))
    return { facet: { facet: { row: { field: "component", type: "nominal", title: null } } }, width: WIDTH, height: ROW_HEIGHT };
  return { facet: panelFacet(panelOrder(source, component)), width: PANEL_WIDTH, height: PANEL_HEIGHT };
}

/** The facet of a small-multiples chart (spread into the spec): one panel per component and trainer, wrapped. */
function panelFacet(order: string[]) {
  return {
    facet: { field: "panel", type: "nominal", title: null, sort: order, header: { labelFontWeight: "bold" } },
    columns: PANEL_COLUMNS,
  };
}
