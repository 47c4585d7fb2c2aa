// Which rows of a recording a model is scored on. A model stores the timestamps of its held-out test rows
// (metadata.json `held_out`, trainer), so on the recording it was trained on only those rows are honest;
// on another recording every row is held out. Scoring every row of the training recording ("in-sample")
// is allowed but labelled, since the training rows make the errors look better than they are.
import { indexOfValues, takeRows } from "../../../wasm-core/src/index.js";
import type { DataTable } from "../../domain/data-table.js";
import { heldOutOf, type HeldOutRecord } from "../../models/index.js";

/** What the scored rows are: the model's stored test rows, a recording it never saw, or every row (in-sample). */
export type ScoredRowsKind = "held-out" | "other-recording" | "in-sample";

/** The rows to score and what they are. */
export interface ScoredRows {
  kind: ScoredRowsKind;
  table: DataTable;
  /** metadata.json `held_out`, when the model stores it. */
  stored?: HeldOutRecord;
}

/** The rows of `table` at `timestampsSeconds` (those present), in that order. */
function tableAtTimestamps(table: DataTable, timestampsSeconds: readonly number[]): DataTable {
  const found = Array.from(indexOfValues(table.timestamps, Float64Array.from(timestampsSeconds))).filter((row) => row >= 0);
  return tableAtRows(table, Uint32Array.from(found));
}

/** The rows `rows` of `table`, in that order. */
export function tableAtRows(table: DataTable, rows: Uint32Array): DataTable {
  const cols = table.columnNames.length;
  const found = Array.from(rows);
  const values = takeRows({ rows: table.rowCount, cols, values: table.values }, rows).values;
  const timestamps = takeRows({ rows: table.rowCount, cols: 1, values: table.timestamps }, rows).values;
  return {
    columnNames: table.columnNames,
    rowCount: rows.length,
    values,
    timestamps,
    ...(table.rowIds === undefined ? {} : { rowIds: found.map((row) => table.rowIds![row]!) }),
  };
}

/**
 * The rows to score a model with `metadata` on: every row when `inSample`; else its stored test rows when
 * the table holds any of them (the training recording), else every row (another recording).
 */
export function rowsToScore(table: DataTable, metadata: Record<string, unknown>, inSample: boolean): ScoredRows {
  const stored = heldOutOf(metadata);
  const withStored = (rows: Omit<ScoredRows, "stored">): ScoredRows => (stored === undefined ? rows : { ...rows, stored });
  if (inSample) return withStored({ kind: "in-sample", table });
  if (stored !== undefined && stored.timestampsSeconds.length > 0) {
    const heldOut = tableAtTimestamps(table, stored.timestampsSeconds);
    if (heldOut.rowCount > 0) return withStored({ kind: "held-out", table: heldOut });
  }
  return withStored({ kind: "other-recording", table });
}
