// squeeze_data (reference train/isolator/isolator.py, spec §4.1): container rows -> one row per timestamp.
import type { DataTable } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import { type SqueezeColumn, squeezeByTimestamp } from "../../../wasm-core/src/index.js";
import { NODE_TYPE_COLUMN } from "./label-columns.js";

/** A column is a ratio column when its name contains `ratio` (reference rule, e.g. `packge_ratio_package`). */
export function isRatioColumn(column: string): boolean {
  return column.includes("ratio");
}

/**
 * Squeezes a container-level table into node rows: per timestamp, ratio and feature columns are summed over
 * containers (ratios then divided by their row sum), label and node_type columns averaged (they repeat the
 * node value on every container row). Output columns in the reference's order: ratios, features, labels,
 * node_type; one row per distinct timestamp, ascending; no row ids (the reference's `all containers`).
 */
export function squeezeContainerTable(table: DataTable, labelColumns: readonly string[]): DataTable {
  const index = (name: string) => table.columnNames.indexOf(name);
  for (const label of labelColumns) {
    if (index(label) < 0) throw new InvalidInputError("table.column_names", `missing label column ${label}`);
  }
  const nodeLevel = new Set([...labelColumns, NODE_TYPE_COLUMN]);
  const ratios = table.columnNames.filter((column) => isRatioColumn(column) && !nodeLevel.has(column));
  const features = table.columnNames.filter((column) => !isRatioColumn(column) && !nodeLevel.has(column));
  const nodeType = index(NODE_TYPE_COLUMN) >= 0 ? [NODE_TYPE_COLUMN] : [];
  const plan: Array<{ name: string; column: SqueezeColumn }> = [
    ...ratios.map((name) => ({ name, column: { source: index(name), mode: "ratio" as const } })),
    ...features.map((name) => ({ name, column: { source: index(name), mode: "sum" as const } })),
    ...[...labelColumns, ...nodeType].map((name) => ({ name, column: { source: index(name), mode: "mean" as const } })),
  ];
  const squeezed = squeezeByTimestamp(
    { rowCount: table.rowCount, values: table.values, timestamps: table.timestamps },
    plan.map((entry) => entry.column),
  );
  return {
    columnNames: plan.map((entry) => entry.name),
    rowCount: squeezed.rowCount,
    values: squeezed.values,
    timestamps: squeezed.timestamps,
  };
}
