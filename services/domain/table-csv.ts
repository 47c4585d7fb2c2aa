// CSV text as the reference writes it with pandas DataFrame.to_csv (spec §3.6): the index first
// (`timestamp`, or `timestamp,id` at container level), the reference's column names, floats as
// Python's repr (shortest round-trip digits: `1.0`, `0.3333333333333333`, `1e-05`), `node_type` as an
// integer (the reference casts it with astype(int)), NaN as an empty field.
// The text comes in pieces of about CSV_CHUNK_CHARS characters, so a writer streams a table of any size
// without ever holding its whole text (a 240k-row container table is ~40 MB of text).
import type { DataTable } from "./data-table.js";
import { formatPythonFloat } from "./python-repr.js";

export { formatPythonFloat };

/** Columns the reference holds as integers. */
const INTEGER_COLUMNS: readonly string[] = ["node_type"];

/** About how many characters each piece of tableCsvChunks holds. */
const CSV_CHUNK_CHARS = 1 << 16;

/**
 * Python's repr() of a float, with a fast path for the common range: there JavaScript's String() gives the
 * same shortest round-trip digits in fixed notation (it switches to exponents only below 1e-6 and from
 * 1e21), so only an integral value needs Python's ".0".
 */
function formatFloatField(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const text = String(value);
    return text.includes(".") ? text : `${text}.0`;
  }
  return Number.isNaN(value) ? "" : formatPythonFloat(value);
}

function formatIntegerField(value: number): string {
  return Number.isFinite(value) ? String(Math.trunc(value)) : "";
}

function formatTimestamp(value: number): string {
  return Number.isInteger(value) ? String(value) : formatPythonFloat(value);
}

function quote(field: string): string {
  return /[",\n\r]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
}

/** The table as the reference's CSV text (header first, every line ending in a newline), piece by piece. */
export function* tableCsvChunks(table: DataTable, chunkChars = CSV_CHUNK_CHARS): Generator<string> {
  const n = table.rowCount;
  const { values, timestamps, rowIds } = table;
  const index = rowIds === undefined ? ["timestamp"] : ["timestamp", "id"];
  const formatters = table.columnNames.map((name) => (INTEGER_COLUMNS.includes(name) ? formatIntegerField : formatFloatField));
  const columnCount = formatters.length;
  // A container-level table repeats the node's columns (power, ratio, node type) for every container at a
  // timestamp: each column reuses the text of its previous value when the value is the same (0 and -0 differ).
  const previousValues = new Float64Array(columnCount).fill(Number.NaN);
  const previousTexts = formatters.map(() => "");
  let chunk = `${[...index, ...table.columnNames].map(quote).join(",")}\n`;
  // Ids repeat once per sample: quote each distinct one once.
  const quotedIds = new Map<string, string>();
  for (let row = 0; row < n; row++) {
    let line = formatTimestamp(timestamps[row]!);
    if (rowIds !== undefined) {
      const id = rowIds[row]!;
      let quoted = quotedIds.get(id);
      if (quoted === undefined) quotedIds.set(id, (quoted = quote(id)));
      line += `,${quoted}`;
    }
    for (let column = 0; column < columnCount; column++) {
      const value = values[column * n + row]!;
      const previous = previousValues[column]!;
      if (value !== previous || (value === 0 && 1 / value !== 1 / previous)) {
        previousValues[column] = value;
        previousTexts[column] = formatters[column]!(value);
      }
      line += `,${previousTexts[column]}`;
    }
    chunk += `${line}\n`;
    if (chunk.length >= chunkChars) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk !== "") yield chunk;
}

/** The table as the reference's CSV text (with a trailing newline), for small tables; stream big ones with tableCsvChunks. */
export function tableToCsv(table: DataTable): string {
  return [...tableCsvChunks(table)].join("");
}
