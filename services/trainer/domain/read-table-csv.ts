// Reads a training table from CSV in the reference's extract format (pandas to_csv of the extractor or
// isolator output): a `timestamp` column, numeric value columns, optionally the pandas index as an
// unnamed first column and an `id` column (container id, kept as row ids). Plain CSV only: no quotes.
import { createDataTable, type DataTable } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";

const TIMESTAMP_COLUMN = "timestamp";
const ID_COLUMN = "id";

/** Parses CSV text into a DataTable; `source` names the input in errors (a file path). */
export function readTableCsv(text: string, source = "csv"): DataTable {
  const lines = text.split(/\r?\n/).filter((line) => line.length > 0);
  const header = lines[0]?.split(",");
  if (header === undefined) throw new InvalidInputError(source, "empty CSV: expected a header line");
  if (text.includes('"')) throw new InvalidInputError(source, "quoted CSV fields are not supported");
  const timestampIndex = header.indexOf(TIMESTAMP_COLUMN);
  if (timestampIndex < 0)
    throw new InvalidInputError(`${source}: header`, `missing the ${TIMESTAMP_COLUMN} column (have: ${header.join(", ")})`);
  const idIndex = header.indexOf(ID_COLUMN);
  // An unnamed first column is pandas' index (save_csv without index=False): not a value column.
  const valueIndices = header.flatMap((name, i) =>
    i === timestampIndex || i === idIndex || (i === 0 && name === "") ? [] : [i],
  );
  const rows = lines.slice(1).map((line, r) => {
    const cells = line.split(",");
    if (cells.length !== header.length) {
      throw new InvalidInputError(`${source}: line ${r + 2}`, `expected ${header.length} fields, got ${cells.length}`);
    }
    return cells;
  });
  const parse = (cell: string, r: number, column: string): number => {
    const value = cell === "" ? Number.NaN : Number(cell);
    if (Number.isNaN(value) && cell !== "" && cell.toLowerCase() !== "nan") {
      throw new InvalidInputError(`${source}: line ${r + 2}, column ${column}`, `"${cell}" is not a number`);
    }
    return value;
  };
  const timestamps = rows.map((cells, r) => parse(cells[timestampIndex] as string, r, TIMESTAMP_COLUMN));
  const columns = valueIndices.map((i) => {
    const name = header[i] as string;
    return [name, rows.map((cells, r) => parse(cells[i] as string, r, name))] as const;
  });
  const rowIds = idIndex < 0 ? undefined : rows.map((cells) => cells[idIndex] as string);
  return createDataTable(timestamps, columns, rowIds);
}
