// Idle power profiles (reference train/profiler/profiler.py, spec §9.3) with the profiler's bugs fixed
// (spec Appendix A.12, docs/deviations.md "Isolator and pipeline"): the extractor's power is already in
// watts, so it is not divided by the step again; a component's units are the columns whose component is
// exactly it (`core` no longer matches `uncore_power`); and the node table the values come from has the
// repeated last sample (a zero energy delta) dropped, as the extractor's AbsPower path drops it.
import type { DataTable } from "../../domain/data-table.js";
import { type EnergySource, componentsOf } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import { columnStats, distinctValues, rowsWhereEqual, takeRows } from "../../../wasm-core/src/index.js";
import { NODE_TYPE_COLUMN, unitColumnsOf } from "./label-columns.js";

/** The idle power of one component of one node type. */
export interface IdleProfile {
  readonly energySource: EnergySource;
  readonly component: string;
  readonly nodeType: number;
  /** Minimum idle power over the idle rows, watts. */
  readonly minWatts: number;
  /** Maximum idle power over the idle rows, watts. */
  readonly maxWatts: number;
  /** Number of power columns (units) of the component (reference `#unit`). */
  readonly unitCount: number;
}

/** The background power the profile isolator removes: (min + max) / 2 per unit, times the units (reference Profile.get_background_power). */
export function backgroundWattsOf(profile: IdleProfile): number {
  return ((profile.minWatts + profile.maxWatts) / 2) * profile.unitCount;
}

/** The node-level idle table of one energy source (the extractor's AbsPower table of the idle data). */
export interface IdleNodeTable {
  readonly energySource: EnergySource;
  readonly table: DataTable;
}

/**
 * One profile per (source, component, node type) of the idle node tables: the minimum and maximum of the
 * component's power over the idle rows of that node type. With several unit columns the extremes run
 * over all of them (our extractor sums packages, so there is one unit per component).
 */
export function buildIdleProfiles(tables: readonly IdleNodeTable[]): IdleProfile[] {
  return tables.flatMap(({ energySource, table }) => {
    const nodeTypeIndex = table.columnNames.indexOf(NODE_TYPE_COLUMN);
    if (table.rowCount === 0) throw new InvalidInputError("idle", `no idle rows with ${energySource} power`);
    const nodeTypeColumn =
      nodeTypeIndex < 0
        ? new Float64Array(table.rowCount)
        : table.values.subarray(nodeTypeIndex * table.rowCount, (nodeTypeIndex + 1) * table.rowCount);
    const all = { rows: table.rowCount, cols: table.columnNames.length, values: table.values };
    return Array.from(distinctValues(nodeTypeColumn)).flatMap((nodeType) => {
      const rows = takeRows(all, rowsWhereEqual(nodeTypeColumn, nodeType));
      return componentsOf(energySource).flatMap((component) => {
        const units = unitColumnsOf(table, component);
        if (units.length === 0) return [];
        const stats = columnStats({
          rows: rows.rows,
          cols: units.length,
          values: concatColumns(
            rows.values,
            rows.rows,
            units.map((unit) => table.columnNames.indexOf(unit)),
          ),
        });
        return [
          {
            energySource,
            component,
            nodeType,
            minWatts: Math.min(...stats.map((stat) => stat.min)),
            maxWatts: Math.max(...stats.map((stat) => stat.max)),
            unitCount: units.length,
          },
        ];
      });
    });
  });
}

function concatColumns(values: Float64Array, rows: number, columns: readonly number[]): Float64Array {
  const out = new Float64Array(rows * columns.length);
  columns.forEach((column, k) => {
    out.set(values.subarray(column * rows, (column + 1) * rows), k * rows);
  });
  return out;
}

/** The profile lookup the profile isolator uses. */
export function findProfile(
  profiles: readonly IdleProfile[],
  energySource: EnergySource,
  component: string,
  nodeType: number,
): IdleProfile | undefined {
  return profiles.find(
    (profile) => profile.energySource === energySource && profile.component === component && profile.nodeType === nodeType,
  );
}

/**
 * The profiles in the reference's file shape, keyed by source (`profile/<source>.json` holds one source's
 * value): `{source: {component: {"<node_type>": {min_watt, max_watt, "#unit"}}}}`.
 */
export function profilesToJson(profiles: readonly IdleProfile[]): Record<string, Record<string, Record<string, unknown>>> {
  const out: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const profile of profiles) {
    out[profile.energySource] ??= {};
    const bySource = out[profile.energySource]!;
    bySource[profile.component] ??= {};
    const byComponent = bySource[profile.component]!;
    byComponent[String(profile.nodeType)] = {
      min_watt: profile.minWatts,
      max_watt: profile.maxWatts,
      "#unit": profile.unitCount,
    };
  }
  return out;
}
