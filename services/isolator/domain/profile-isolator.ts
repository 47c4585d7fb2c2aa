// ProfileBackgroundIsolator (`profile`, reference §4.4): drop the idle node's containers from the features,
// subtract the idle profile's background power from the labels.
import { type DataTable, getColumn } from "../../domain/data-table.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import { distinctValues, indexOfValues } from "../../../wasm-core/src/index.js";
import { splitContainers } from "./container-split.js";
import { type IdleProfile, backgroundWattsOf, findProfile } from "./idle-profile.js";
import { NODE_TYPE_COLUMN, componentOfColumn } from "./label-columns.js";
import { subtractFromLabels } from "./label-offsets.js";
import { squeezeContainerTable } from "./squeeze.js";

/** The result of the profile isolator, or the (component, node type) pairs it has no profile for. */
export type ProfileIsolation =
  | {
      readonly kind: "isolated";
      readonly table: DataTable;
      /** Watts removed per label column, per node type (node types ascending). */
      readonly backgroundWatts: ReadonlyArray<{ readonly nodeType: number; readonly watts: readonly number[] }>;
      readonly backgroundContainerNames: readonly string[];
      readonly targetContainerCount: number;
      readonly clampedCount: number;
    }
  | {
      readonly kind: "missing-profile";
      readonly missing: ReadonlyArray<{ readonly component: string; readonly nodeType: number }>;
    };

/** The node types of a container-level table (its `node_type` column, 0 when absent), ascending. */
function nodeTypesOf(table: DataTable): number[] {
  if (!table.columnNames.includes(NODE_TYPE_COLUMN)) return [0];
  return Array.from(distinctValues(getColumn(table, NODE_TYPE_COLUMN)));
}

/**
 * Removes the rows of background containers (names seen in the idle data) from the features and subtracts
 * (min + max) / 2 * units of each component's idle profile for the row's node type from the labels, clamped
 * at 0. Returns `missing-profile` when a node type of the table has no profile for a label's component.
 */
export function isolateWithProfiles(
  table: DataTable,
  labelColumns: readonly string[],
  energySource: EnergySource,
  profiles: readonly IdleProfile[],
  backgroundContainerNames: readonly string[],
): ProfileIsolation {
  const background = new Set(backgroundContainerNames);
  const split = splitContainers(table, (name) => background.has(name));
  const squeezed = squeezeContainerTable(split.target, labelColumns);
  const nodeTypes = nodeTypesOf(squeezed);
  const missing: Array<{ component: string; nodeType: number }> = [];
  const watts = nodeTypes.map((nodeType) => ({
    nodeType,
    watts: labelColumns.map((label) => {
      const component = componentOfColumn(label);
      const profile = findProfile(profiles, energySource, component, nodeType);
      if (profile === undefined) missing.push({ component, nodeType });
      return profile === undefined ? Number.NaN : backgroundWattsOf(profile);
    }),
  }));
  if (missing.length > 0) return { kind: "missing-profile", missing };
  const groupOfRow = squeezed.columnNames.includes(NODE_TYPE_COLUMN)
    ? Float64Array.from(indexOfValues(Float64Array.from(nodeTypes), getColumn(squeezed, NODE_TYPE_COLUMN)))
    : new Float64Array(squeezed.rowCount);
  const offsets = Float64Array.from(watts.flatMap((entry) => entry.watts));
  const result = subtractFromLabels(squeezed, labelColumns, groupOfRow, offsets);
  return {
    kind: "isolated",
    table: result.table,
    backgroundWatts: watts,
    backgroundContainerNames: split.backgroundContainerNames,
    targetContainerCount: split.targetContainerCount,
    clampedCount: result.clampedCount,
  };
}
