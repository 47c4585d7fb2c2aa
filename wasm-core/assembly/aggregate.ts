// Timestamp axes and group-by-timestamp aggregation: the kernels behind the extractor's joins and
// sums (reference kepler-model-server train/extractor/extractor.py, spec §3.1-3.3).
//
// An axis is a strictly increasing f64 block of Unix seconds. A series is placed on an axis by a merge
// walk (restarted with a binary search whenever the series goes backwards), so placing n samples on an
// axis of m steps costs O(n + m). A "grid" is planes x keys x steps f64 values: one plane per feature
// column, one row of steps per container key, as pandas' groupby([timestamp, id]) would lay them out.
// Row indices passed between kernels are f64 (exact for any index below 2^53), -1 meaning "absent".
import { OK, ERR_DIMENSION } from "./status";

function at(ptr: usize, i: i32): f64 {
  return load<f64>(ptr + ((<usize>i) << 3));
}

function put(ptr: usize, i: i32, v: f64): void {
  store<f64>(ptr + ((<usize>i) << 3), v);
}

/** First index j with axis[j] >= t (binary search over the whole axis). */
function lowerBound(axisPtr: usize, nAxis: i32, t: f64): i32 {
  let lo = 0;
  let hi = nAxis;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (at(axisPtr, mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Writes the sorted union of two strictly increasing blocks to out (capacity na + nb) and returns
 * its length, or ERR_DIMENSION for negative sizes. Equal values appear once.
 */
export function unionSorted(aPtr: usize, na: i32, bPtr: usize, nb: i32, outPtr: usize): i32 {
  if (na < 0 || nb < 0) return ERR_DIMENSION;
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na && j < nb) {
    const a = at(aPtr, i);
    const b = at(bPtr, j);
    if (a < b) {
      put(outPtr, k++, a);
      i++;
    } else if (b < a) {
      put(outPtr, k++, b);
      j++;
    } else {
      put(outPtr, k++, a);
      i++;
      j++;
    }
  }
  while (i < na) put(outPtr, k++, at(aPtr, i++));
  while (j < nb) put(outPtr, k++, at(bPtr, j++));
  return k;
}

/** Writes the values present in both strictly increasing blocks to out and returns the count. */
export function intersectSorted(aPtr: usize, na: i32, bPtr: usize, nb: i32, outPtr: usize): i32 {
  if (na < 0 || nb < 0) return ERR_DIMENSION;
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na && j < nb) {
    const a = at(aPtr, i);
    const b = at(bPtr, j);
    if (a < b) i++;
    else if (b < a) j++;
    else {
      put(outPtr, k++, a);
      i++;
      j++;
    }
  }
  return k;
}

/** out[i] = index of ts[i] on the axis, or -1 when the axis lacks it. */
export function locateOnAxis(axisPtr: usize, nAxis: i32, tsPtr: usize, n: i32, outPtr: usize): i32 {
  if (nAxis < 0 || n < 0) return ERR_DIMENSION;
  let j = 0;
  let previous: f64 = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = at(tsPtr, i);
    if (t < previous) j = lowerBound(axisPtr, nAxis, t);
    while (j < nAxis && at(axisPtr, j) < t) j++;
    put(outPtr, i, j < nAxis && at(axisPtr, j) === t ? <f64>j : -1);
    previous = t;
  }
  return OK;
}

/**
 * Adds each sample to the axis step with its timestamp: sums[j] += value (NaN adds 0, the reference's
 * fillna(0)) and counts[j] += 1. Samples whose timestamp is not on the axis are skipped; returns how
 * many were skipped (>= 0), or ERR_DIMENSION. With a compensation block (compsPtr != 0, zero-filled
 * like sums) the additions are Kahan-compensated in sample order, exactly as pandas' groupby sum
 * (group_sum in pandas/_libs/groupby.pyx) adds the rows of each timestamp.
 */
export function accumulateOnAxis(
  axisPtr: usize,
  nAxis: i32,
  tsPtr: usize,
  valuesPtr: usize,
  n: i32,
  sumsPtr: usize,
  countsPtr: usize,
  compsPtr: usize,
): i32 {
  if (nAxis < 0 || n < 0) return ERR_DIMENSION;
  let skipped = 0;
  let j = 0;
  let previous: f64 = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = at(tsPtr, i);
    if (t < previous) j = lowerBound(axisPtr, nAxis, t);
    previous = t;
    while (j < nAxis && at(axisPtr, j) < t) j++;
    if (j >= nAxis || at(axisPtr, j) !== t) {
      skipped++;
      continue;
    }
    const raw = at(valuesPtr, i);
    const v = Number.isNaN(raw) ? 0 : raw;
    if (compsPtr === 0) {
      put(sumsPtr, j, at(sumsPtr, j) + v);
    } else {
      const sum = at(sumsPtr, j);
      const y = v - at(compsPtr, j);
      const total = sum + y;
      put(compsPtr, j, total - sum - y);
      put(sumsPtr, j, total);
    }
    put(countsPtr, j, at(countsPtr, j) + 1);
  }
  return skipped;
}

/**
 * Places one series of a key on the key's merged axis when several series of that key may share steps:
 * per step, the sample of the series whose value changed most recently wins (ties: the series placed
 * later). Prometheus repeats a series that stopped at every step of its lookback window when no
 * staleness marker ends it (backfilled data), so the repeats lose to the series that is still moving.
 * `changedAt[j]` holds the winning sample's last-change time and `counts[j]` 1 once a step is taken;
 * both start zero-filled. Returns how many samples met a step already taken (>= 0), or ERR_DIMENSION.
 */
export function overlayLatestChange(
  axisPtr: usize,
  nAxis: i32,
  tsPtr: usize,
  valuesPtr: usize,
  n: i32,
  outPtr: usize,
  changedAtPtr: usize,
  countsPtr: usize,
): i32 {
  if (nAxis < 0 || n < 0) return ERR_DIMENSION;
  let shared = 0;
  let j = 0;
  let changed: f64 = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = at(tsPtr, i);
    const v = at(valuesPtr, i);
    if (i === 0 || v !== at(valuesPtr, i - 1)) changed = t;
    while (j < nAxis && at(axisPtr, j) < t) j++;
    if (j >= nAxis || at(axisPtr, j) !== t) continue;
    if (at(countsPtr, j) > 0) {
      shared++;
      if (changed < at(changedAtPtr, j)) continue;
    }
    put(outPtr, j, v);
    put(changedAtPtr, j, changed);
    put(countsPtr, j, 1);
  }
  return shared;
}

/**
 * out[p][t] = sum over keys of grid[p][k][t] for a planes x keys x steps grid (the reference's
 * groupby(timestamp).sum() over containers). Keys are added in order with Kahan compensation, as
 * pandas' group_sum does, two steps per SIMD lane pair.
 */
export function sumOverKeys(gridPtr: usize, planes: i32, keys: i32, steps: i32, outPtr: usize): i32 {
  if (planes < 0 || keys < 0 || steps < 0) return ERR_DIMENSION;
  const rowBytes = (<usize>steps) << 3;
  const pairs = steps & ~1;
  const comps = heap.alloc(rowBytes > 0 ? rowBytes : 8);
  for (let p = 0; p < planes; p++) {
    const out = outPtr + <usize>p * rowBytes;
    memory.fill(out, 0, rowBytes);
    memory.fill(comps, 0, rowBytes);
    const plane = gridPtr + <usize>p * <usize>keys * rowBytes;
    for (let k = 0; k < keys; k++) {
      const row = plane + <usize>k * rowBytes;
      let t = 0;
      for (; t < pairs; t += 2) {
        const offset = (<usize>t) << 3;
        const sum = v128.load(out + offset);
        const y = f64x2.sub(v128.load(row + offset), v128.load(comps + offset));
        const total = f64x2.add(sum, y);
        v128.store(comps + offset, f64x2.sub(f64x2.sub(total, sum), y));
        v128.store(out + offset, total);
      }
      if (t < steps) {
        const sum = at(out, t);
        const y = at(row, t) - at(comps, t);
        const total = sum + y;
        put(comps, t, total - sum - y);
        put(out, t, total);
      }
    }
  }
  heap.free(comps);
  return OK;
}

/** out[i] = src[index[i]] where index[i] >= 0, else `missing`. ERR_DIMENSION for an index past nSrc. */
export function gatherByIndex(srcPtr: usize, nSrc: i32, indexPtr: usize, n: i32, missing: f64, outPtr: usize): i32 {
  if (nSrc < 0 || n < 0) return ERR_DIMENSION;
  for (let i = 0; i < n; i++) {
    const index = at(indexPtr, i);
    if (index >= <f64>nSrc) return ERR_DIMENSION;
    put(outPtr, i, index >= 0 ? at(srcPtr, <i32>index) : missing);
  }
  return OK;
}

/**
 * out[i] = sums[i] / counts[i] where counts[i] > 0, else `missing`; truncated toward zero when
 * `truncate` is 1 (pandas astype(int) after a per-timestamp mean, reference get_system_feature_data).
 */
export function meanOrMissing(sumsPtr: usize, countsPtr: usize, n: i32, missing: f64, truncate: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i = 0; i < n; i++) {
    const count = at(countsPtr, i);
    let v = count > 0 ? at(sumsPtr, i) / count : missing;
    if (truncate === 1 && count > 0) v = trunc<f64>(v);
    put(outPtr, i, v);
  }
  return OK;
}

/**
 * Row filter of the power table, compacting in place: keeps row i when every one of the nCols
 * columns (column-major, stride n) is finite (the reference's dropna) and the first nSumCols columns
 * do not sum to 0 (its drop_zero_column, which drops rows, not columns). The axis is compacted with
 * the columns. Returns the number of rows kept.
 */
export function keepPowerRows(axisPtr: usize, n: i32, colsPtr: usize, nCols: i32, nSumCols: i32): i32 {
  if (n < 0 || nCols < 0 || nSumCols < 0 || nSumCols > nCols) return ERR_DIMENSION;
  const stride = (<usize>n) << 3;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    let finite = true;
    let sum: f64 = 0;
    for (let c = 0; c < nCols; c++) {
      const v = at(colsPtr + <usize>c * stride, i);
      if (!Number.isFinite(v)) finite = false;
      if (c < nSumCols) sum += v;
    }
    if (!finite || sum === 0) continue;
    if (kept !== i) {
      put(axisPtr, kept, at(axisPtr, i));
      for (let c = 0; c < nCols; c++) {
        const col = colsPtr + <usize>c * stride;
        put(col, kept, at(col, i));
      }
    }
    kept++;
  }
  return kept;
}

/**
 * The container-level table (reference groupby([timestamp, id]).sum()): one row per present
 * (step, key) cell whose step has a row, ordered by step then key, for the steps stepFrom..stepTo-1
 * (callers gather a long table in chunks of steps). Output columns (stride nOut): the grid's planes,
 * then the row-level columns (power, node type...) looked up through rowIndex (a block of nRowCols
 * columns with stride nRows). Writes each row's key and step index.
 */
export function gatherContainerRows(
  gridPtr: usize,
  planes: i32,
  keys: i32,
  steps: i32,
  presencePtr: usize,
  rowIndexPtr: usize,
  rowColsPtr: usize,
  nRowCols: i32,
  nRows: i32,
  outPtr: usize,
  nOut: i32,
  outKeyPtr: usize,
  outStepPtr: usize,
  stepFrom: i32,
  stepTo: i32,
): i32 {
  if (planes < 0 || keys < 0 || steps < 0 || nRowCols < 0 || nRows < 0 || nOut < 0) return ERR_DIMENSION;
  if (stepFrom < 0 || stepTo > steps || stepFrom > stepTo) return ERR_DIMENSION;
  const stepBytes = (<usize>steps) << 3;
  const outStride = (<usize>nOut) << 3;
  const rowStride = (<usize>nRows) << 3;
  let r = 0;
  for (let t = stepFrom; t < stepTo; t++) {
    const rowIndex = at(rowIndexPtr, t);
    if (rowIndex < 0) continue;
    const source = <i32>rowIndex;
    for (let k = 0; k < keys; k++) {
      if (!(at(presencePtr + <usize>k * stepBytes, t) > 0)) continue;
      if (r >= nOut) return ERR_DIMENSION;
      for (let p = 0; p < planes; p++) {
        const cell = gridPtr + (<usize>p * <usize>keys + <usize>k) * stepBytes;
        put(outPtr + <usize>p * outStride, r, at(cell, t));
      }
      for (let c = 0; c < nRowCols; c++) {
        put(outPtr + <usize>(planes + c) * outStride, r, at(rowColsPtr + <usize>c * rowStride, source));
      }
      put(outKeyPtr, r, <f64>k);
      put(outStepPtr, r, <f64>t);
      r++;
    }
  }
  return r;
}

/** out[t] = number of keys with presence[k][t] > 0: how many container rows the step has. */
export function countPresentKeys(presencePtr: usize, keys: i32, steps: i32, outPtr: usize): i32 {
  if (keys < 0 || steps < 0) return ERR_DIMENSION;
  const rowBytes = (<usize>steps) << 3;
  memory.fill(outPtr, 0, rowBytes);
  for (let k = 0; k < keys; k++) {
    const row = presencePtr + <usize>k * rowBytes;
    for (let t = 0; t < steps; t++) if (at(row, t) > 0) put(outPtr, t, at(outPtr, t) + 1);
  }
  return OK;
}

/**
 * The node-level table (reference groupby(timestamp): features summed, power averaged): one row per
 * step that has at least one container row (rowCounts[t] > 0) and a row-level row (rowIndex[t] >= 0).
 * Columns as gatherContainerRows, from the per-step sums (planes x steps). The first nMeanCols
 * row-level columns (power) are the mean of the value repeated on each of the step's rowCounts[t]
 * container rows, Kahan-summed then divided as pandas' group_mean does, so they carry the same last
 * bit as the reference. Output stride is `steps`; writes each row's step index; returns the row count.
 */
export function gatherNodeRows(
  sumsPtr: usize,
  planes: i32,
  steps: i32,
  rowCountsPtr: usize,
  rowIndexPtr: usize,
  rowColsPtr: usize,
  nRowCols: i32,
  nRows: i32,
  nMeanCols: i32,
  outPtr: usize,
  outStepPtr: usize,
): i32 {
  if (planes < 0 || steps < 0 || nRowCols < 0 || nRows < 0 || nMeanCols < 0 || nMeanCols > nRowCols) return ERR_DIMENSION;
  const stride = (<usize>steps) << 3;
  const rowStride = (<usize>nRows) << 3;
  let r = 0;
  for (let t = 0; t < steps; t++) {
    const rowIndex = at(rowIndexPtr, t);
    const count = at(rowCountsPtr, t);
    if (rowIndex < 0 || !(count > 0)) continue;
    const source = <i32>rowIndex;
    for (let p = 0; p < planes; p++) put(outPtr + <usize>p * stride, r, at(sumsPtr + <usize>p * stride, t));
    for (let c = 0; c < nRowCols; c++) {
      const value = at(rowColsPtr + <usize>c * rowStride, source);
      put(outPtr + <usize>(planes + c) * stride, r, c < nMeanCols ? repeatedMean(value, <i32>count) : value);
    }
    put(outStepPtr, r, <f64>t);
    r++;
  }
  return r;
}

/** Kahan sum of `count` copies of value, divided by count (pandas group_mean on equal values). */
function repeatedMean(value: f64, count: i32): f64 {
  let sum: f64 = 0;
  let compensation: f64 = 0;
  for (let i = 0; i < count; i++) {
    const y = value - compensation;
    const total = sum + y;
    compensation = total - sum - y;
    sum = total;
  }
  return sum / <f64>count;
}

/** Number of values greater than `threshold` (NaN never is): the reference CLI's validate counts. */
export function countGreaterThan(valuesPtr: usize, n: i32, threshold: f64): i32 {
  if (n < 0) return ERR_DIMENSION;
  let count = 0;
  for (let i = 0; i < n; i++) if (at(valuesPtr, i) > threshold) count++;
  return count;
}

/** Number of i with values[i] < values[i-1]: the decreases a counter-to-rate pass reads as resets. */
export function countDecreases(valuesPtr: usize, n: i32): i32 {
  if (n < 0) return ERR_DIMENSION;
  let count = 0;
  for (let i = 1; i < n; i++) if (at(valuesPtr, i) < at(valuesPtr, i - 1)) count++;
  return count;
}
