// Row selection and per-column summaries: the small kernels a trainer needs between the table it
// receives and the fitting kernels. Matrices are column-major f64 blocks (rows x cols), the layout
// of DataTable.values; row indices are u32 blocks.
//
// takeRows is numpy's fancy indexing X[rows] (what sklearn's train_test_split does to X and y);
// columnStats gives the max/min/std numpy computes for the reference's curve-fit starting points
// (np.std is the population standard deviation, ddof=0).
import { OK, ERR_DIMENSION } from "./status";

/** out[i, j] = x[rows[i], j] for i < nRows. ERR_DIMENSION if a row index is out of range. */
export function takeRows(xPtr: usize, rows: i32, cols: i32, rowsPtr: usize, nRows: i32, outPtr: usize): i32 {
  if (rows < 0 || cols < 0 || nRows < 0) return ERR_DIMENSION;
  for (let i = 0; i < nRows; i++) {
    if (load<u32>(rowsPtr + ((<usize>i) << 2)) >= <u32>rows) return ERR_DIMENSION;
  }
  for (let j = 0; j < cols; j++) {
    const src = xPtr + ((<usize>j * <usize>rows) << 3);
    const dst = outPtr + ((<usize>j * <usize>nRows) << 3);
    for (let i = 0; i < nRows; i++) {
      const r = <usize>load<u32>(rowsPtr + ((<usize>i) << 2));
      store<f64>(dst + ((<usize>i) << 3), load<f64>(src + (r << 3)));
    }
  }
  return OK;
}

/** Number of f64 values columnStats writes per column. */
export const COLUMN_STATS_WIDTH: i32 = 5;

/**
 * Per column j, writes five values at out[5j..5j+4]: min, max, mean and population standard
 * deviation over the finite values, and the count of non-finite values (NaN, +-Infinity).
 * A column with no finite value gets NaN for the first four. The mean and deviation use two passes
 * (mean first, then the sum of squared deviations), as numpy does.
 */
export function columnStats(xPtr: usize, rows: i32, cols: i32, outPtr: usize): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  for (let j = 0; j < cols; j++) {
    const src = xPtr + ((<usize>j * <usize>rows) << 3);
    let minValue: f64 = Infinity;
    let maxValue: f64 = -Infinity;
    let sum: f64 = 0;
    let finite: i32 = 0;
    for (let i = 0; i < rows; i++) {
      const v = load<f64>(src + ((<usize>i) << 3));
      if (!isFinite(v)) continue;
      finite++;
      sum += v;
      if (v < minValue) minValue = v;
      if (v > maxValue) maxValue = v;
    }
    const out = outPtr + ((<usize>j * 5) << 3);
    if (finite == 0) {
      store<f64>(out, NaN);
      store<f64>(out + 8, NaN);
      store<f64>(out + 16, NaN);
      store<f64>(out + 24, NaN);
      store<f64>(out + 32, <f64>rows);
      continue;
    }
    const mean = sum / <f64>finite;
    let squares: f64 = 0;
    for (let i = 0; i < rows; i++) {
      const v = load<f64>(src + ((<usize>i) << 3));
      if (!isFinite(v)) continue;
      const d = v - mean;
      squares += d * d;
    }
    store<f64>(out, minValue);
    store<f64>(out + 8, maxValue);
    store<f64>(out + 16, mean);
    store<f64>(out + 24, Math.sqrt(squares / <f64>finite));
    store<f64>(out + 32, <f64>(rows - finite));
  }
  return OK;
}

/** out[i, j] = x[i, j] * factors[i]: the reference's features x packge_ratio_<unit> (apply_ratio). */
export function multiplyRows(xPtr: usize, rows: i32, cols: i32, factorsPtr: usize, outPtr: usize): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  for (let j = 0; j < cols; j++) {
    const offset = (<usize>j * <usize>rows) << 3;
    for (let i = 0; i < rows; i++) {
      const k = (<usize>i) << 3;
      store<f64>(outPtr + offset + k, load<f64>(xPtr + offset + k) * load<f64>(factorsPtr + k));
    }
  }
  return OK;
}

/** Writes the indices i (ascending) with values[i] == value to out; returns their count (NaN matches nothing). */
export function rowsWhereEqual(valuesPtr: usize, n: i32, value: f64, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  let count: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (load<f64>(valuesPtr + ((<usize>i) << 3)) == value) {
      store<u32>(outPtr + ((<usize>count) << 2), <u32>i);
      count++;
    }
  }
  return count;
}

// Heap sort of u32 indices by the f64 values they point at (ties by index, so the order is total
// and the first occurrence of a value sorts first). NaN values must be filtered out by the caller.
function lessAt(valuesPtr: usize, a: u32, b: u32): bool {
  const va = load<f64>(valuesPtr + ((<usize>a) << 3));
  const vb = load<f64>(valuesPtr + ((<usize>b) << 3));
  return va < vb || (va == vb && a < b);
}

function siftDown(valuesPtr: usize, idxPtr: usize, start: i32, end: i32): void {
  let root = start;
  while (true) {
    let child = 2 * root + 1;
    if (child >= end) return;
    const c0 = load<u32>(idxPtr + ((<usize>child) << 2));
    if (child + 1 < end) {
      const c1 = load<u32>(idxPtr + ((<usize>(child + 1)) << 2));
      if (lessAt(valuesPtr, c0, c1)) child++;
    }
    const r = load<u32>(idxPtr + ((<usize>root) << 2));
    const c = load<u32>(idxPtr + ((<usize>child) << 2));
    if (!lessAt(valuesPtr, r, c)) return;
    store<u32>(idxPtr + ((<usize>root) << 2), c);
    store<u32>(idxPtr + ((<usize>child) << 2), r);
    root = child;
  }
}

function sortIndices(valuesPtr: usize, idxPtr: usize, n: i32): void {
  for (let start = n / 2 - 1; start >= 0; start--) siftDown(valuesPtr, idxPtr, start, n);
  for (let end = n - 1; end > 0; end--) {
    const top = load<u32>(idxPtr);
    store<u32>(idxPtr, load<u32>(idxPtr + ((<usize>end) << 2)));
    store<u32>(idxPtr + ((<usize>end) << 2), top);
    siftDown(valuesPtr, idxPtr, 0, end);
  }
}

/**
 * Writes the distinct finite values of `values` to out in ascending order and returns their count
 * (pandas unique + sort). scratchPtr must hold n u32 values.
 */
export function distinctValues(valuesPtr: usize, n: i32, scratchPtr: usize, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  let m: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (isFinite(load<f64>(valuesPtr + ((<usize>i) << 3)))) {
      store<u32>(scratchPtr + ((<usize>m) << 2), <u32>i);
      m++;
    }
  }
  sortIndices(valuesPtr, scratchPtr, m);
  let count: i32 = 0;
  let previous: f64 = NaN;
  for (let i = 0; i < m; i++) {
    const v = load<f64>(valuesPtr + ((<usize>load<u32>(scratchPtr + ((<usize>i) << 2))) << 3));
    if (count == 0 || v != previous) {
      store<f64>(outPtr + ((<usize>count) << 3), v);
      count++;
      previous = v;
    }
  }
  return count;
}

/**
 * For each needle k, writes to out[k] (i32) the first index i with haystack[i] == needles[k], or -1.
 * Sorts the haystack's indices once (scratchPtr: n u32 values), then binary-searches each needle.
 */
export function indexOfValues(haystackPtr: usize, n: i32, needlesPtr: usize, m: i32, scratchPtr: usize, outPtr: usize): i32 {
  if (n < 0 || m < 0) return ERR_DIMENSION;
  let finite: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (isFinite(load<f64>(haystackPtr + ((<usize>i) << 3)))) {
      store<u32>(scratchPtr + ((<usize>finite) << 2), <u32>i);
      finite++;
    }
  }
  sortIndices(haystackPtr, scratchPtr, finite);
  for (let k = 0; k < m; k++) {
    const needle = load<f64>(needlesPtr + ((<usize>k) << 3));
    let lo: i32 = 0;
    let hi: i32 = finite;
    // First position whose value is >= needle; ties sort by index, so it is the first occurrence.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const v = load<f64>(haystackPtr + ((<usize>load<u32>(scratchPtr + ((<usize>mid) << 2))) << 3));
      if (v < needle) lo = mid + 1;
      else hi = mid;
    }
    let found: i32 = -1;
    if (lo < finite) {
      const index = load<u32>(scratchPtr + ((<usize>lo) << 2));
      if (load<f64>(haystackPtr + ((<usize>index) << 3)) == needle) found = <i32>index;
    }
    store<i32>(outPtr + ((<usize>k) << 2), found);
  }
  return OK;
}

/**
 * Writes the row indices 0..n-1 that are not in rows[0..m) to out, ascending, and returns their
 * count. markPtr must hold n bytes. ERR_DIMENSION if an index is out of range.
 */
export function complementRows(n: i32, rowsPtr: usize, m: i32, markPtr: usize, outPtr: usize): i32 {
  if (n < 0 || m < 0) return ERR_DIMENSION;
  memory.fill(markPtr, 0, <usize>n);
  for (let k = 0; k < m; k++) {
    const r = load<u32>(rowsPtr + ((<usize>k) << 2));
    if (r >= <u32>n) return ERR_DIMENSION;
    store<u8>(markPtr + <usize>r, 1);
  }
  let count: i32 = 0;
  for (let i = 0; i < n; i++) {
    if (load<u8>(markPtr + <usize>i) == 0) {
      store<u32>(outPtr + ((<usize>count) << 2), <u32>i);
      count++;
    }
  }
  return count;
}
