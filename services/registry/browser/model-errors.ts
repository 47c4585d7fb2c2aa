// A model's error per component as the pages show it: held-out (exact) when the model stores it, else the
// reference's rounded keys. A component measured at 0 W throughout (core, uncore on many machines) has no
// error to show: MAPE -1 means no positive power, and a 0 W MAE there only says 0 was predicted for 0.
import { componentsOf, type EnergySource } from "../../domain/energy-sources.js";
import { heldOutOf } from "../../models/index.js";
import type { StoredModel } from "../domain/stored-model.js";

export interface ComponentErrorView {
  readonly component: string;
  readonly maeWatts: number | undefined;
  /** undefined when the component had no positive power on the test rows. */
  readonly mapePercent: number | undefined;
  /** Measured at 0 W throughout: nothing to show. */
  readonly empty: boolean;
}

export function componentErrors(model: StoredModel): ComponentErrorView[] {
  const heldOut = heldOutOf(model.metadata);
  const views: ComponentErrorView[] = [];
  for (const component of componentsOf(model.location.energySource as EnergySource)) {
    const exact = heldOut?.components.find((c) => c.component === component);
    const mae = exact?.maeWatts ?? model.metadata[`${component}_mae`];
    const mape = exact?.mapePercent ?? model.metadata[`${component}_mape`];
    if (exact === undefined && !(`${component}_mae` in model.metadata)) continue;
    const noPower = typeof mape !== "number" || mape < 0;
    views.push({
      component,
      maeWatts: typeof mae === "number" ? mae : undefined,
      mapePercent: noPower ? undefined : mape,
      empty: noPower && (typeof mae !== "number" || mae === 0),
    });
  }
  return views;
}

/** The node type as a page shows it: a number, or "any" for the reference's -1. */
export const nodeTypeText = (nodeType: number) => (nodeType < 0 ? "any" : String(nodeType));

export function modelHref(model: StoredModel): string {
  const l = model.location;
  return `/ui/pipeline/${[l.pipelineName, "model", l.energySource, l.outputType, l.featureGroup, l.modelName].map(encodeURIComponent).join("/")}`;
}
