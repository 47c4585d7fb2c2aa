// CSV text as the reference writes it with pandas DataFrame.to_csv (spec §3.6): the index first
// (`timestamp`, or `timestamp,id` at container level), the reference's column names, floats as
// Python's repr (shortest round-trip digits: `1.0`, `0.3333333333333333`, `1e-05`), `node_type` as an
// integer (the reference casts it with astype(int)), NaN as an empty field.
import type { DataTable } from "./data-table.js";
import { formatPythonFloat } from "./python-repr.js";

export { formatPythonFloat };

/** Columns the reference holds as integers. */
export const INTEGER_COLUMNS: readonly string[] = ["node_type"];

function formatTimestamp(value: number): string {
  return Number.isInteger(value) ? String(value) : formatPythonFloat(value);
}

function quote(field: string): string {
  return /[",\n\r]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** The table as the reference's CSV text (with a trailing newline). */
export function tableToCsv(table: DataTable): string {
  const n = table.rowCount;
  const index = table.rowIds === undefined ? ["timestamp"] : ["timestamp", "id"];
  const lines = [[...index, ...table.columnNames].map(quote).join(",")];
  const formatters = table.columnNames.map((name) =>
    INTEGER_COLUMNS.includes(name)
      ? (v: number) => (Number.isFinite(v) ? String(Math.trunc(v)) : "")
      : (v: number) => (Number.isNaN(v) ? "" : formatPythonFloat(v)),
  );
  for (let row = 0; row < n; row++) {
    const fields = [formatTimestamp(table.timestamps[row]!)];
    if (table.rowIds !== undefined) fields.push(quote(table.rowIds[row]!));
    formatters.forEach((format, column) => {
      fields.push(format(table.values[column * n + row]!));
    });
    lines.push(fields.join(","));
  }
  return `${lines.join("\n")}\n`;
}
