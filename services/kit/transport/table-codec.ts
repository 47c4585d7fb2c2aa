import { endianness } from "node:os";
import { type DataTable, assertTableShape } from "../../domain/data-table.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { Table, TableChunk } from "../../generated/kepler/model/v1/table.js";
import { CHUNK_BYTES } from "./message-limits.js";

if (endianness() !== "LE") throw new Error("packed float64 tables assume a little-endian host");

/**
 * Packed little-endian float64 bytes as a Float64Array: a view over the same memory when the bytes
 * start at a multiple of 8, otherwise one bulk copy (decoded protobuf bytes can start anywhere).
 */
export function bytesToFloat64(bytes: Uint8Array, field: string): Float64Array {
  if (bytes.byteLength % 8 !== 0) {
    throw new InvalidInputError(field, `packed float64 bytes must be a multiple of 8 long, got ${bytes.byteLength}`);
  }
  if (bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
  return new Float64Array(bytes.slice().buffer);
}

/** A Float64Array as packed bytes for the wire, without copying. */
function float64ToBytes(values: Float64Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

/** Decodes a wire Table into a DataTable, validating its shape; `field` names it in errors. */
export function decodeTable(table: Table, field = "table"): DataTable {
  const decoded: DataTable = {
    columnNames: table.columnNames,
    rowCount: table.rowCount,
    values: bytesToFloat64(table.values, `${field}.values`),
    timestamps: bytesToFloat64(table.timestamps, `${field}.timestamps`),
    rowIds: table.rowIds.length > 0 ? table.rowIds : undefined,
  };
  assertTableShape(decoded, field);
  return decoded;
}

/** Encodes a DataTable as one wire Table (small tables; stream large ones with tableToChunks). */
export function encodeTable(table: DataTable): Table {
  return {
    columnNames: [...table.columnNames],
    rowCount: table.rowCount,
    values: float64ToBytes(table.values),
    timestamps: float64ToBytes(table.timestamps),
    rowIds: table.rowIds ? [...table.rowIds] : [],
  };
}

/** Rows per chunk so that a chunk stays near CHUNK_BYTES. */
function defaultRowsPerChunk(columnCount: number): number {
  return Math.max(1, Math.floor(CHUNK_BYTES / (8 * (columnCount + 1))));
}

/** Splits a table into consecutive row chunks; column names only on the first chunk. An empty table gives one empty chunk. */
export function* tableToChunks(
  table: DataTable,
  rowsPerChunk = defaultRowsPerChunk(table.columnNames.length),
): Generator<TableChunk> {
  const columns = table.columnNames.length;
  let start = 0;
  do {
    const end = Math.min(table.rowCount, start + rowsPerChunk);
    const rows = end - start;
    const values = new Float64Array(rows * columns);
    for (let column = 0; column < columns; column++) {
      const offset = column * table.rowCount;
      values.set(table.values.subarray(offset + start, offset + end), column * rows);
    }
    yield {
      columnNames: start === 0 ? [...table.columnNames] : [],
      rowCount: rows,
      values: float64ToBytes(values),
      timestamps: float64ToBytes(table.timestamps.slice(start, end)),
      rowIds: [],
      ...rowIdDictionary(table.rowIds, start, end),
    };
    start = end;
  } while (start < table.rowCount);
}

// A chunk's row ids as a dictionary of distinct ids and a packed uint32 index per row.
function rowIdDictionary(
  rowIds: readonly string[] | undefined,
  start: number,
  end: number,
): { rowIdDictionary: string[]; rowIdIndexes: Buffer } {
  if (rowIds === undefined) return { rowIdDictionary: [], rowIdIndexes: Buffer.alloc(0) };
  const dictionary: string[] = [];
  const positions = new Map<string, number>();
  const indexes = new Uint32Array(end - start);
  for (let row = start; row < end; row++) {
    const id = rowIds[row]!;
    let position = positions.get(id);
    if (position === undefined) {
      position = dictionary.push(id) - 1;
      positions.set(id, position);
    }
    indexes[row - start] = position;
  }
  return { rowIdDictionary: dictionary, rowIdIndexes: Buffer.from(indexes.buffer, 0, indexes.byteLength) };
}

// A chunk's row ids from either form (row_ids, or row_id_dictionary + row_id_indexes); [] when none.
function chunkRowIds(chunk: TableChunk, name: string): string[] {
  const dictionary = chunk.rowIdDictionary ?? [];
  const packed = chunk.rowIdIndexes ?? new Uint8Array(0);
  if (dictionary.length === 0 && packed.byteLength === 0) return chunk.rowIds;
  if (chunk.rowIds.length > 0)
    throw new InvalidInputError(`${name}.row_ids`, "a chunk carries row_ids or row_id_dictionary, not both");
  if (packed.byteLength !== 4 * chunk.rowCount)
    throw new InvalidInputError(
      `${name}.row_id_indexes`,
      `expected ${chunk.rowCount} packed uint32 values (${4 * chunk.rowCount} bytes), got ${packed.byteLength} bytes`,
    );
  const view = new DataView(packed.buffer, packed.byteOffset, packed.byteLength);
  const rowIds = new Array<string>(chunk.rowCount);
  for (let row = 0; row < chunk.rowCount; row++) {
    const index = view.getUint32(4 * row, true);
    const id = dictionary[index];
    if (id === undefined)
      throw new InvalidInputError(
        `${name}.row_id_indexes`,
        `row ${row} names entry ${index} of a dictionary of ${dictionary.length}`,
      );
    rowIds[row] = id;
  }
  return rowIds;
}

/** Reassembles a streamed table, validating every chunk; `field` names the stream in errors. */
export async function collectChunks(
  chunks: AsyncIterable<TableChunk> | Iterable<TableChunk>,
  field = "chunks",
): Promise<DataTable> {
  let columnNames: string[] | undefined;
  const parts: Array<{ rows: number; values: Float64Array; timestamps: Float64Array; rowIds: string[] }> = [];
  let index = 0;
  for await (const chunk of chunks) {
    const name = `${field}[${index}]`;
    if (columnNames === undefined) {
      if (chunk.columnNames.length === 0)
        throw new InvalidInputError(`${name}.column_names`, "the first chunk must name the columns");
      columnNames = chunk.columnNames;
    } else if (chunk.columnNames.length > 0 && chunk.columnNames.join("\u0000") !== columnNames.join("\u0000")) {
      throw new InvalidInputError(`${name}.column_names`, "columns differ from the first chunk");
    }
    const rowIds = chunkRowIds(chunk, name);
    const part = decodeTable({ ...chunk, columnNames, rowIds }, name);
    parts.push({ rows: part.rowCount, values: part.values, timestamps: part.timestamps, rowIds });
    index++;
  }
  if (columnNames === undefined) throw new InvalidInputError(field, "no table chunks received");
  const rowCount = parts.reduce((sum, part) => sum + part.rows, 0);
  const values = new Float64Array(rowCount * columnNames.length);
  const timestamps = new Float64Array(rowCount);
  const hasIds = parts.some((part) => part.rowIds.length > 0);
  const rowIds: string[] = [];
  let start = 0;
  for (const part of parts) {
    for (let column = 0; column < columnNames.length; column++) {
      values.set(part.values.subarray(column * part.rows, (column + 1) * part.rows), column * rowCount + start);
    }
    timestamps.set(part.timestamps, start);
    if (hasIds) {
      if (part.rowIds.length !== part.rows)
        throw new InvalidInputError(`${field}.row_ids`, "every chunk must carry row ids when one does");
      rowIds.push(...part.rowIds);
    }
    start += part.rows;
  }
  return { columnNames, rowCount, values, timestamps, rowIds: hasIds ? rowIds : undefined };
}
