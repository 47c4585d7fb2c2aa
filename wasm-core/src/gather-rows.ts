// Table rows gathered out of an aggregated grid in chunks (the extractor's container and node tables).
import { countPresentKeys, gatherByIndex } from "./aggregate.js";
import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type F64Slice, sliceOf } from "./f64-slice.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** Rows gathered from a grid: column-major values plus, per row, its key index and its timestamp. */
export interface GatheredRows {
  readonly rowCount: number;
  readonly values: Float64Array;
  /** Per row, the index of its key (container); empty for node rows. */
  readonly keyIndex: Float64Array;
  /** Per row, the grid axis value (Unix seconds) of its step. */
  readonly timestamps: Float64Array;
}

/** Where the per-step row-level columns (power, node type...) live: nCols columns of stride nRows. */
export interface RowLevelColumns {
  readonly block: F64Slice;
  readonly nCols: number;
  readonly nRows: number;
  /** Per grid step, the row in `block` (or -1 when the step has no row there). */
  readonly rowIndex: F64Slice;
}

/** Rows gathered per chunk of whole steps: wasm holds one chunk of the output, never the whole table. */
export const GATHER_CHUNK_ROWS = 1 << 16;

/**
 * The container-level rows of a grid: one per (step, key) cell with presence > 0 whose step has a
 * row-level row, ordered by step then key; columns = grid planes then the row-level columns. Gathered
 * in chunks of about `chunkRows` rows straight into the JavaScript arrays.
 */
export function gatherContainerRows(
  grid: F64Slice,
  presence: F64Slice,
  axis: F64Slice,
  shape: { planes: number; keys: number },
  rowLevel: RowLevelColumns,
  chunkRows = GATHER_CHUNK_ROWS,
): GatheredRows {
  const exports = core();
  const { planes, keys } = shape;
  const steps = axis.length;
  const rowsPerStep = countPresentKeys(presence, keys, steps);
  const perStep = withBuffers([rowsPerStep], () => rowsPerStep.toArray());
  const rowIndexOfStep = new Float64Array(exports.memory.buffer, rowLevel.rowIndex.ptr, steps).slice();
  for (let t = 0; t < steps; t++) if (rowIndexOfStep[t]! < 0) perStep[t] = 0;
  const count = perStep.reduce((total, rows) => total + rows, 0);
  const columns = planes + rowLevel.nCols;
  const values = new Float64Array(count * columns);
  const keyIndex = new Float64Array(count);
  const timestamps = new Float64Array(count);
  const axisValues = new Float64Array(exports.memory.buffer, axis.ptr, steps).slice();
  // A chunk holds whole steps: at least the largest step, else about chunkRows.
  const largestStep = perStep.reduce((largest, rows) => Math.max(largest, rows), 0);
  const capacity = Math.max(1, Math.min(count, chunkRows), largestStep);
  const out = F64Buffer.alloc(capacity * columns);
  const outKey = F64Buffer.alloc(capacity);
  const outStep = F64Buffer.alloc(capacity);
  withBuffers([out, outKey, outStep], () => {
    let row = 0;
    for (let from = 0; from < steps;) {
      let to = from;
      let rows = 0;
      while (to < steps && (to === from || rows + perStep[to]! <= capacity)) rows += perStep[to++]!;
      const written = exports.gatherContainerRows(
        grid.ptr,
        planes,
        keys,
        steps,
        presence.ptr,
        rowLevel.rowIndex.ptr,
        rowLevel.block.ptr,
        rowLevel.nCols,
        rowLevel.nRows,
        out.ptr,
        rows,
        outKey.ptr,
        outStep.ptr,
        from,
        to,
      );
      assertKernelOk("gatherContainerRows", written === rows ? 0 : -1);
      const chunk = out.view();
      for (let c = 0; c < columns; c++) values.set(chunk.subarray(c * rows, (c + 1) * rows), c * count + row);
      keyIndex.set(outKey.view().subarray(0, rows), row);
      const stepOf = outStep.view();
      for (let r = 0; r < rows; r++) timestamps[row + r] = axisValues[stepOf[r]!]!;
      row += rows;
      from = to;
    }
  });
  return { rowCount: count, values, keyIndex, timestamps };
}

/**
 * The node-level rows: per step with rowCounts > 0 (container rows at that step) and a row-level row,
 * the per-step sums (planes x steps) followed by the row-level columns; the first `meanColumns` of
 * those (power) are averaged over the step's container rows as pandas does (same last bit).
 */
export function gatherNodeRows(
  sums: F64Slice,
  planes: number,
  axis: F64Slice,
  rowCounts: F64Slice,
  rowLevel: RowLevelColumns,
  meanColumns = 0,
): GatheredRows {
  const steps = axis.length;
  const columns = planes + rowLevel.nCols;
  const out = F64Buffer.alloc(Math.max(1, steps * columns));
  const stepIndex = F64Buffer.alloc(steps);
  return withBuffers([out, stepIndex], () => {
    const count = core().gatherNodeRows(
      sums.ptr,
      planes,
      steps,
      rowCounts.ptr,
      rowLevel.rowIndex.ptr,
      rowLevel.block.ptr,
      rowLevel.nCols,
      rowLevel.nRows,
      meanColumns,
      out.ptr,
      stepIndex.ptr,
    );
    assertKernelOk("gatherNodeRows", Math.min(count, 0));
    const values = new Float64Array(count * columns);
    const all = out.view();
    for (let column = 0; column < columns; column++) {
      values.set(all.subarray(column * steps, column * steps + count), column * count);
    }
    const timestamps = gatherByIndex(axis, sliceOf(stepIndex, 0, count), Number.NaN);
    return withBuffers([timestamps], () => ({
      rowCount: count,
      values,
      keyIndex: new Float64Array(0),
      timestamps: timestamps.toArray(),
    }));
  });
}
