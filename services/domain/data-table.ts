import { InvalidInputError } from "./errors.js";

/**
 * A columnar float64 table in JavaScript memory: what extractor, isolator and trainer exchange.
 * `values` is column-major (all rows of column 0, then column 1, ...), matching the wire format
 * (proto Table) and the layout wasm-core kernels read, so moving it is one bulk copy.
 */
export interface DataTable {
  /** Value column names, in order (the reference's names). */
  readonly columnNames: readonly string[];
  readonly rowCount: number;
  /** rowCount * columnNames.length values, column-major. */
  readonly values: Float64Array;
  /** Unix seconds per row. */
  readonly timestamps: Float64Array;
  /** Row ids for container-level tables; undefined for node-level tables. */
  readonly rowIds?: readonly string[];
}

/** Builds a table from named columns, checking every column has one value per timestamp. */
export function createDataTable(
  timestamps: ArrayLike<number>,
  columns: ReadonlyArray<readonly [name: string, values: ArrayLike<number>]>,
  rowIds?: readonly string[],
): DataTable {
  const rowCount = timestamps.length;
  const values = new Float64Array(rowCount * columns.length);
  columns.forEach(([name, column], index) => {
    if (column.length !== rowCount) {
      throw new InvalidInputError(`columns.${name}`, `expected ${rowCount} values, got ${column.length}`);
    }
    values.set(column, index * rowCount);
  });
  if (rowIds !== undefined && rowIds.length !== rowCount) {
    throw new InvalidInputError("row_ids", `expected ${rowCount} row ids, got ${rowIds.length}`);
  }
  return { columnNames: columns.map(([name]) => name), rowCount, values, timestamps: Float64Array.from(timestamps), rowIds };
}

/** Index of a column, or -1. */
export function findColumn(table: DataTable, name: string): number {
  return table.columnNames.indexOf(name);
}

/** A view (no copy) of one column's values; throws InvalidInputError naming the missing column. */
export function getColumn(table: DataTable, name: string, field = "table"): Float64Array {
  const index = findColumn(table, name);
  if (index < 0) throw new InvalidInputError(`${field}.column_names`, `missing column ${name}`);
  return table.values.subarray(index * table.rowCount, (index + 1) * table.rowCount);
}

/** Checks that a decoded table's arrays agree with its declared shape. */
export function assertTableShape(table: DataTable, field = "table"): void {
  const expected = table.rowCount * table.columnNames.length;
  if (table.values.length !== expected) {
    throw new InvalidInputError(
      `${field}.values`,
      `expected ${expected} float64 values (${table.rowCount} rows x ${table.columnNames.length} columns), got ${table.values.length}`,
    );
  }
  if (table.timestamps.length !== table.rowCount) {
    throw new InvalidInputError(`${field}.timestamps`, `expected ${table.rowCount} timestamps, got ${table.timestamps.length}`);
  }
  if (table.rowIds !== undefined && table.rowIds.length > 0 && table.rowIds.length !== table.rowCount) {
    throw new InvalidInputError(`${field}.row_ids`, `expected ${table.rowCount} row ids, got ${table.rowIds.length}`);
  }
}
