// Removing a background from the label columns of a squeezed table, clamped at 0.
import type { DataTable } from "../../domain/data-table.js";
import { subtractGroupOffsets } from "../../../wasm-core/src/index.js";

/** A table whose labels lost a background, and how many label values were clamped at 0. */
export interface OffsetLabels {
  readonly table: DataTable;
  readonly clampedCount: number;
}

/**
 * Subtracts `offsets[group * labels + j]` from label column j of every row in `group` (groupOfRow gives
 * each row's group), clamping at 0 so DynPower labels are never negative. The label columns must be
 * consecutive, as squeezeContainerTable lays them out.
 */
export function subtractFromLabels(
  table: DataTable,
  labelColumns: readonly string[],
  groupOfRow: Float64Array,
  offsets: Float64Array,
): OffsetLabels {
  const rows = table.rowCount;
  const first = table.columnNames.indexOf(labelColumns[0] ?? "");
  if (first < 0 || labelColumns.some((label, k) => table.columnNames[first + k] !== label)) {
    throw new Error("subtractFromLabels: label columns must be consecutive in the squeezed table");
  }
  const block = table.values.subarray(first * rows, (first + labelColumns.length) * rows);
  const result = subtractGroupOffsets({ values: block, rows, cols: labelColumns.length }, groupOfRow, offsets, {
    clampAtZero: true,
  });
  const values = table.values.slice();
  values.set(result.values, first * rows);
  return { table: { ...table, values }, clampedCount: result.clampedCount };
}

/** One group for every row (a single offset per label column). */
export function singleGroup(rows: number): Float64Array {
  return new Float64Array(rows);
}
