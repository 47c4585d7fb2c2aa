import { accumulateOnAxis, gatherByIndex, locateOnAxis, meanOrMissing } from "./aggregate.js";
import { copySlice, sliceOf } from "./f64-slice.js";
import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { distinctValues } from "./gather.js";
import { core } from "./module.js";
import { KernelStatus, WasmKernelError, assertKernelOk } from "./status.js";

/** How a column is combined over the rows that share a timestamp (reference squeeze_data, spec §4.1). */
export type SqueezeMode = "sum" | "mean" | "ratio";

/** One output column of a squeeze: the input column it reads and how rows are combined. */
export interface SqueezeColumn {
  /** Index of the input column. */
  readonly source: number;
  /**
   * `sum` over the rows of a timestamp (features), `mean` (node values: labels, node type), or `ratio`:
   * summed, then divided by the row's sum over every ratio column. Ratio columns must be consecutive.
   */
  readonly mode: SqueezeMode;
}

/** Column-major rows x columns values with one timestamp per row. */
export interface TimedColumns {
  readonly rowCount: number;
  /** rowCount * columns values, column-major. */
  readonly values: Float64Array;
  readonly timestamps: Float64Array;
}

/**
 * Combines the rows of each timestamp into one row (pandas groupby(timestamp).sum()/.mean()): the output
 * has one row per distinct timestamp, ascending, and one column per entry of `columns`. Sums add NaN as
 * 0 (pandas' skipna); means divide by the number of rows of the timestamp. Reuses the extractor's
 * aggregate kernels (accumulateOnAxis, meanOrMissing) for the grouping.
 */
export function squeezeByTimestamp(input: TimedColumns, columns: readonly SqueezeColumn[]): TimedColumns {
  const rows = input.rowCount;
  if (input.timestamps.length !== rows || input.values.length % Math.max(rows, 1) !== 0) {
    throw new WasmKernelError("squeezeByTimestamp", KernelStatus.dimension);
  }
  const inputColumns = rows === 0 ? 0 : input.values.length / rows;
  for (const column of columns) {
    if (!Number.isInteger(column.source) || column.source < 0 || column.source >= inputColumns) {
      throw new RangeError(`squeezeByTimestamp: column ${column.source} outside 0..${inputColumns - 1}`);
    }
  }
  const ratioAt = columns.flatMap((column, index) => (column.mode === "ratio" ? [index] : []));
  const firstRatio = ratioAt[0] ?? 0;
  if (ratioAt.some((index, k) => index !== firstRatio + k))
    throw new RangeError("squeezeByTimestamp: ratio columns must be consecutive");

  const axisValues = distinctValues(input.timestamps);
  const steps = axisValues.length;
  const axis = F64Buffer.from(axisValues);
  const timestamps = F64Buffer.from(input.timestamps);
  // One input column at a time in wasm memory: a container table can be far larger than its squeeze.
  const column = F64Buffer.alloc(rows);
  const sums = F64Buffer.alloc(steps * columns.length);
  const counts = F64Buffer.alloc(steps);
  const scratchCounts = F64Buffer.alloc(steps);
  return withBuffers([axis, timestamps, column, sums, counts, scratchCounts], () => {
    sums.view().fill(0);
    counts.view().fill(0);
    scratchCounts.view().fill(0);
    columns.forEach((entry, k) => {
      column.view().set(input.values.subarray(entry.source * rows, (entry.source + 1) * rows));
      // Every column sees the same rows, so the first column's counts are every column's counts.
      accumulateOnAxis(axis, timestamps, column, sliceOf(sums, k * steps, steps), k === 0 ? counts : scratchCounts);
    });
    columns.forEach((entry, k) => {
      if (entry.mode !== "mean") return;
      const target = sliceOf(sums, k * steps, steps);
      const means = meanOrMissing(target, counts, Number.NaN, false);
      withBuffers([means], () => copySlice(means, target));
    });
    if (ratioAt.length > 0) {
      assertKernelOk("normalizeRowSums", core().normalizeRowSums(sums.ptr + firstRatio * steps * 8, steps, ratioAt.length));
    }
    return { rowCount: steps, values: sums.toArray(), timestamps: axisValues };
  });
}

/** A block after subtracting offsets, and how many values were clamped at 0. */
export interface OffsetResult {
  /** Column-major, the shape of the input block. */
  readonly values: Float64Array;
  readonly clampedCount: number;
}

/**
 * Subtracts per-group offsets from a rows x cols column-major block: row i loses
 * `offsets[groupOfRow[i] * cols + j]` in column j (group-major offsets, one row of `cols` per group).
 * With `clampAtZero`, negative results become 0 and are counted.
 */
export function subtractGroupOffsets(
  block: { readonly values: Float64Array; readonly rows: number; readonly cols: number },
  groupOfRow: Float64Array,
  offsets: Float64Array,
  options: { readonly clampAtZero: boolean },
): OffsetResult {
  const { rows, cols } = block;
  if (block.values.length !== rows * cols || groupOfRow.length !== rows || offsets.length % Math.max(cols, 1) !== 0) {
    throw new WasmKernelError("subtractGroupOffsets", KernelStatus.dimension);
  }
  const groups = cols === 0 ? 0 : offsets.length / cols;
  const x = F64Buffer.from(block.values);
  const group = F64Buffer.from(groupOfRow);
  const offset = F64Buffer.from(offsets);
  const out = F64Buffer.alloc(rows * cols);
  return withBuffers([x, group, offset, out], () => {
    const clamped = core().subtractGroupOffsets(
      x.ptr,
      rows,
      cols,
      group.ptr,
      offset.ptr,
      groups,
      options.clampAtZero ? 1 : 0,
      out.ptr,
    );
    if (clamped < 0) assertKernelOk("subtractGroupOffsets", clamped);
    return { values: out.toArray(), clampedCount: clamped };
  });
}

/**
 * TrainIsolator's dynamic power per row: max(0, node - background), a NaN background counting as 0.
 * Returns the values and how many rows were clamped.
 */
export function dynamicPower(nodeWatts: Float64Array, backgroundWatts: Float64Array): OffsetResult {
  const n = nodeWatts.length;
  if (backgroundWatts.length !== n) throw new WasmKernelError("dynamicPower", KernelStatus.dimension);
  const node = F64Buffer.from(nodeWatts);
  const background = F64Buffer.from(backgroundWatts);
  const out = F64Buffer.alloc(n);
  return withBuffers([node, background, out], () => {
    const clamped = core().dynamicPower(node.ptr, background.ptr, n, out.ptr);
    if (clamped < 0) assertKernelOk("dynamicPower", clamped);
    return { values: out.toArray(), clampedCount: clamped };
  });
}

/** label / node * dynamic per row (a label's share of node power applied to dynamic power), non-finite or negative -> 0. */
export function scaleByShare(labelWatts: Float64Array, nodeWatts: Float64Array, dynamicWatts: Float64Array): Float64Array {
  const n = labelWatts.length;
  if (nodeWatts.length !== n || dynamicWatts.length !== n) throw new WasmKernelError("scaleByShare", KernelStatus.dimension);
  const label = F64Buffer.from(labelWatts);
  const node = F64Buffer.from(nodeWatts);
  const dynamic = F64Buffer.from(dynamicWatts);
  const out = F64Buffer.alloc(n);
  return withBuffers([label, node, dynamic, out], () => {
    assertKernelOk("scaleByShare", core().scaleByShare(label.ptr, node.ptr, dynamic.ptr, n, out.ptr));
    return out.toArray();
  });
}

/**
 * Places the rows of `source` (one row per distinct timestamp) on `targetTimestamps`: the output has one
 * row per target timestamp and the source's columns, `missing` where the source has no row at that time.
 * Uses the extractor's axis kernels (locateOnAxis, gatherByIndex); source timestamps must be strictly
 * increasing.
 */
export function alignOnTimestamps(source: TimedColumns, targetTimestamps: Float64Array, missing: number): Float64Array {
  const rows = source.rowCount;
  if (source.timestamps.length !== rows || source.values.length % Math.max(rows, 1) !== 0) {
    throw new WasmKernelError("alignOnTimestamps", KernelStatus.dimension);
  }
  const cols = rows === 0 ? 0 : source.values.length / rows;
  const n = targetTimestamps.length;
  const out = new Float64Array(n * cols);
  if (cols === 0) return out;
  const axis = F64Buffer.from(source.timestamps);
  const targets = F64Buffer.from(targetTimestamps);
  const values = F64Buffer.from(source.values);
  return withBuffers([axis, targets, values], () => {
    const index = locateOnAxis(axis, targets);
    return withBuffers([index], () => {
      for (let column = 0; column < cols; column++) {
        const gathered = gatherByIndex(sliceOf(values, column * rows, rows), index, missing);
        withBuffers([gathered], () => out.set(gathered.view(), column * n));
      }
      return out;
    });
  });
}
