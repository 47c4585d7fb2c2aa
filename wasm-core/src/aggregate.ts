// Aggregation kernels over F64Slices: sorted-axis unions and intersections, counters to rates, values
// placed on a time axis, per-key sums and means.
import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { copySlice, type F64Slice, sliceOf } from "./f64-slice.js";
import { core } from "./module.js";
import type { CounterResetPolicy } from "./rates.js";
import { assertKernelOk } from "./status.js";

function exact(source: F64Buffer, length: number): F64Buffer {
  const out = F64Buffer.alloc(length);
  copySlice(sliceOf(source, 0, length), out);
  return out;
}

/**
 * The sorted union (each value once) of strictly increasing blocks, e.g. the timestamps of every
 * series of a metric: the extractor's timestamp axis. The caller frees the result.
 */
export function unionOfSorted(blocks: Iterable<F64Slice>): F64Buffer {
  return combineSorted(blocks, "unionSorted");
}

/** The values present in every one of the strictly increasing blocks. The caller frees the result. */
export function intersectionOfSorted(blocks: Iterable<F64Slice>): F64Buffer {
  return combineSorted(blocks, "intersectSorted");
}

function combineSorted(blocks: Iterable<F64Slice>, kernel: "unionSorted" | "intersectSorted"): F64Buffer {
  const exports = core();
  let current: F64Buffer | undefined;
  let used = 0;
  for (const block of blocks) {
    if (current === undefined) {
      current = F64Buffer.alloc(block.length);
      copySlice(block, current);
      used = block.length;
      continue;
    }
    const next = F64Buffer.alloc(used + block.length);
    const count = exports[kernel](current.ptr, used, block.ptr, block.length, next.ptr);
    current.free();
    assertKernelOk(kernel, Math.min(count, 0));
    current = next;
    used = count;
  }
  if (current === undefined) return F64Buffer.alloc(0);
  if (used === current.length) return current;
  return withBuffers([current], () => exact(current, used));
}

/**
 * Per-second rates of one counter segment already in wasm memory (the kernel behind
 * wasm-core/src/rates.ts, on slices of larger blocks). Element 0 is NaN.
 */
export function counterToRateOnSlices(
  timestamps: F64Slice,
  values: F64Slice,
  out: F64Slice,
  resetPolicy: CounterResetPolicy,
): void {
  const n = values.length;
  if (timestamps.length !== n || out.length < n) throw new RangeError("counterToRateOnSlices: lengths differ");
  assertKernelOk(
    "counterToRate",
    core().counterToRate(timestamps.ptr, values.ptr, n, out.ptr, resetPolicy === "prometheus" ? 0 : 1),
  );
}

/** For each timestamp, its index on the axis or -1. The caller frees the result. */
export function locateOnAxis(axis: F64Slice, timestamps: F64Slice): F64Buffer {
  const out = F64Buffer.alloc(timestamps.length);
  assertKernelOk("locateOnAxis", core().locateOnAxis(axis.ptr, axis.length, timestamps.ptr, timestamps.length, out.ptr));
  return out;
}

/**
 * Adds samples into per-step sums and counts on an axis (group-by-timestamp sum): NaN values add 0.
 * With a zero-filled `compensation` slice the sums are Kahan-compensated like pandas' groupby sum.
 * Returns how many samples had a timestamp the axis lacks (they are skipped).
 */
export function accumulateOnAxis(
  axis: F64Slice,
  timestamps: F64Slice,
  values: F64Slice,
  sums: F64Slice,
  counts: F64Slice,
  compensation?: F64Slice,
): number {
  if (timestamps.length !== values.length) throw new RangeError("accumulateOnAxis: timestamps and values differ in length");
  if (
    sums.length < axis.length ||
    counts.length < axis.length ||
    (compensation !== undefined && compensation.length < axis.length)
  ) {
    throw new RangeError("accumulateOnAxis: sums/counts/compensation shorter than the axis");
  }
  const skipped = core().accumulateOnAxis(
    axis.ptr,
    axis.length,
    timestamps.ptr,
    values.ptr,
    values.length,
    sums.ptr,
    counts.ptr,
    compensation?.ptr ?? 0,
  );
  assertKernelOk("accumulateOnAxis", Math.min(skipped, 0));
  return skipped;
}

/**
 * Places one (time-sorted) series on a key's merged axis where several series of the key may share
 * steps: per step the sample whose series changed most recently wins, ties to the later call (see the
 * kernel: Prometheus' lookback repeats of a stopped series lose to the live one). `values`,
 * `changedAt` and `counts` cover the axis and start zero-filled. Returns how many samples met a step
 * already taken.
 */
export function overlayLatestChange(
  axis: F64Slice,
  timestamps: F64Slice,
  values: F64Slice,
  out: F64Slice,
  changedAt: F64Slice,
  counts: F64Slice,
): number {
  if (timestamps.length !== values.length) throw new RangeError("overlayLatestChange: timestamps and values differ in length");
  if (out.length < axis.length || changedAt.length < axis.length || counts.length < axis.length) {
    throw new RangeError("overlayLatestChange: out/changedAt/counts shorter than the axis");
  }
  const shared = core().overlayLatestChange(
    axis.ptr,
    axis.length,
    timestamps.ptr,
    values.ptr,
    values.length,
    out.ptr,
    changedAt.ptr,
    counts.ptr,
  );
  assertKernelOk("overlayLatestChange", Math.min(shared, 0));
  return shared;
}

/** Per step, how many keys are present (presence > 0): the container rows of that step. The caller frees the result. */
export function countPresentKeys(presence: F64Slice, keys: number, steps: number): F64Buffer {
  if (presence.length < keys * steps) throw new RangeError("countPresentKeys: presence is smaller than keys x steps");
  const out = F64Buffer.alloc(steps);
  assertKernelOk("countPresentKeys", core().countPresentKeys(presence.ptr, keys, steps, out.ptr));
  return out;
}

/** Sums a planes x keys x steps grid over keys (Kahan-compensated): a planes x steps block. The caller frees the result. */
export function sumOverKeys(grid: F64Slice, planes: number, keys: number, steps: number): F64Buffer {
  if (grid.length < planes * keys * steps) throw new RangeError("sumOverKeys: grid is smaller than planes x keys x steps");
  const out = F64Buffer.alloc(planes * steps);
  assertKernelOk("sumOverKeys", core().sumOverKeys(grid.ptr, planes, keys, steps, out.ptr));
  return out;
}

/** out[i] = source[index[i]], or `missing` where index[i] is -1. The caller frees the result. */
export function gatherByIndex(source: F64Slice, index: F64Slice, missing: number): F64Buffer {
  const out = F64Buffer.alloc(index.length);
  assertKernelOk("gatherByIndex", core().gatherByIndex(source.ptr, source.length, index.ptr, index.length, missing, out.ptr));
  return out;
}

/** Per-step means sums/counts (`missing` where count is 0), optionally truncated like astype(int). */
export function meanOrMissing(sums: F64Slice, counts: F64Slice, missing: number, truncate: boolean): F64Buffer {
  const out = F64Buffer.alloc(sums.length);
  assertKernelOk("meanOrMissing", core().meanOrMissing(sums.ptr, counts.ptr, sums.length, missing, truncate ? 1 : 0, out.ptr));
  return out;
}

/**
 * Compacts a row-level block in place (axis plus nCols columns of stride axis.length): keeps rows whose
 * columns are all finite and whose first nSumCols columns do not sum to 0. Returns the kept row count.
 */
export function keepPowerRows(axis: F64Slice, columns: F64Slice, nCols: number, nSumCols: number): number {
  if (columns.length < axis.length * nCols) throw new RangeError("keepPowerRows: columns block too small");
  const kept = core().keepPowerRows(axis.ptr, axis.length, columns.ptr, nCols, nSumCols);
  assertKernelOk("keepPowerRows", Math.min(kept, 0));
  return kept;
}

/** How many values exceed `threshold` (NaN never does). */
export function countGreaterThan(values: ArrayLike<number>, threshold: number): number {
  const buffer = F64Buffer.from(values);
  return withBuffers([buffer], () => {
    const count = core().countGreaterThan(buffer.ptr, buffer.length, threshold);
    assertKernelOk("countGreaterThan", count < 0 ? count : 0);
    return count;
  });
}

/** How many samples of a counter slice are below the previous one (read as resets by the rate kernel). */
export function countDecreases(values: F64Slice): number {
  const count = core().countDecreases(values.ptr, values.length);
  assertKernelOk("countDecreases", count < 0 ? count : 0);
  return count;
}
