// MinIdleIsolator (`min`, reference §4.3): each label minus its minimum over the whole table.
import type { DataTable } from "../../domain/data-table.js";
import { columnStats } from "../../../wasm-core/src/index.js";
import { singleGroup, subtractFromLabels } from "./label-offsets.js";

/** The labels after the min isolator, and the minimum removed from each label column. */
export interface MinIsolation {
  readonly table: DataTable;
  /** Watts removed per label column, in label order. */
  readonly backgroundWatts: readonly number[];
}

/**
 * Subtracts each label column's minimum over all rows (idle plus background power, reference
 * MinIdleIsolator); the minimum row becomes 0 and no label is negative. Features are kept as squeezed.
 */
export function isolateMin(squeezed: DataTable, labelColumns: readonly string[]): MinIsolation {
  const rows = squeezed.rowCount;
  const first = squeezed.columnNames.indexOf(labelColumns[0] ?? "");
  const stats = columnStats({
    rows,
    cols: labelColumns.length,
    values: squeezed.values.subarray(first * rows, (first + labelColumns.length) * rows),
  });
  const minima = Float64Array.from(stats, (stat) => stat.min);
  const { table } = subtractFromLabels(squeezed, labelColumns, singleGroup(rows), minima);
  return { table, backgroundWatts: Array.from(minima) };
}
