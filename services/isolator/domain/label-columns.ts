// Which columns of an extracted table are labels (node power) and which component each belongs to.
import type { DataTable } from "../../domain/data-table.js";
import { type EnergySource, componentsOf, powerColumn } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";

/** The node-type column the extractor writes (reference `node_type`). */
export const NODE_TYPE_COLUMN = "node_type";

/**
 * The label columns of a table for an energy source: `<component>_power` for every component of the
 * source the table has, in the source's order (the extractor's `power_columns`).
 */
export function labelColumnsOf(table: DataTable, source: EnergySource, field = "table"): string[] {
  const labels = componentsOf(source)
    .map(powerColumn)
    .filter((column) => table.columnNames.includes(column));
  if (labels.length === 0) {
    throw new InvalidInputError(
      `${field}.column_names`,
      `no power column of ${source} (expected ${componentsOf(source).map(powerColumn).join(", ")})`,
    );
  }
  return labels;
}

/**
 * The component of a power column (reference col_to_component): the second-to-last `_` part, or the
 * third-to-last when that part is `dynamic` or `background`. `package_power` -> `package`,
 * `package_0_package_power` -> `package`, `uncore_power` -> `uncore` (never `core`: components are
 * compared whole, which fixes the profiler's substring match, spec Appendix A.12).
 */
export function componentOfColumn(column: string): string {
  const parts = column.split("_");
  const candidate = parts[parts.length - 2] ?? "";
  if (candidate === "dynamic" || candidate === "background") return parts[parts.length - 3] ?? "";
  return candidate;
}

/** The columns of `table` that measure `component`: its unit columns (reference `#unit`). */
export function unitColumnsOf(table: DataTable, component: string): string[] {
  return table.columnNames.filter((column) => column.endsWith("_power") && componentOfColumn(column) === component);
}
