// Split-conformal prediction intervals (Vovk et al., "Algorithmic Learning in a Random World", 2005; Lei et
// al., "Distribution-Free Predictive Inference for Regression", JASA 2018): the absolute residuals of held-out
// rows, sorted once when a model is trained; at estimate time their order statistic at level * (n + 1) is the
// half width. The order statistic is interpolated between neighbours so the expected coverage is the level
// itself rather than ceil(level * (n + 1)) / (n + 1), which with the reference's 10 % test split (tens of rows)
// overshoots by several points. No reference counterpart: the Python model server gives no intervals.
import { ERR_DIMENSION, ERR_NOT_FINITE, OK } from "./status";

// Heapsort, in place, ascending: O(n log n) without extra memory (n can be tens of thousands of test rows).
function siftDown(ptr: usize, start: i32, end: i32): void {
  let root = start;
  while (true) {
    const child = root * 2 + 1;
    if (child > end) return;
    let swap = root;
    if (load<f64>(ptr + ((<usize>swap) << 3)) < load<f64>(ptr + ((<usize>child) << 3))) swap = child;
    if (child + 1 <= end && load<f64>(ptr + ((<usize>swap) << 3)) < load<f64>(ptr + ((<usize>(child + 1)) << 3)))
      swap = child + 1;
    if (swap == root) return;
    const a = ptr + ((<usize>root) << 3);
    const b = ptr + ((<usize>swap) << 3);
    const t = load<f64>(a);
    store<f64>(a, load<f64>(b));
    store<f64>(b, t);
    root = swap;
  }
}

function heapSort(ptr: usize, n: i32): void {
  for (let start = (n - 2) >> 1; start >= 0; start--) siftDown(ptr, start, n - 1);
  for (let end = n - 1; end > 0; end--) {
    const last = ptr + ((<usize>end) << 3);
    const t = load<f64>(ptr);
    store<f64>(ptr, load<f64>(last));
    store<f64>(last, t);
    siftDown(ptr, 0, end - 1);
  }
}

/** Writes |y - p| of n rows to outPtr, sorted ascending. Non-finite input is refused. */
export function sortedAbsResiduals(yPtr: usize, pPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const y = load<f64>(yPtr + offset);
    const p = load<f64>(pPtr + offset);
    if (!isFinite(y) || !isFinite(p)) return ERR_NOT_FINITE;
    store<f64>(outPtr + offset, Math.abs(y - p));
  }
  heapSort(outPtr, n);
  return OK;
}

/**
 * Writes the half width at `level` (0 < level < 1) from n sorted absolute residuals: the order statistic at
 * position level * (n + 1) (1-based), interpolated linearly between its neighbours (position < 1 scales the
 * smallest residual down towards 0; position >= n gives the largest residual, where coverage can no longer
 * reach the level: n < level / (1 - level)).
 */
export function conformalHalfWidth(sortedPtr: usize, n: i32, level: f64, outPtr: usize): i32 {
  if (n <= 0) return ERR_DIMENSION;
  if (!isFinite(level) || level <= 0 || level >= 1) return ERR_NOT_FINITE;
  const position = level * <f64>(n + 1);
  const k = <i32>Math.floor(position);
  const fraction = position - <f64>k;
  let width: f64;
  if (k >= n) width = load<f64>(sortedPtr + ((<usize>(n - 1)) << 3));
  else if (k < 1) width = fraction * load<f64>(sortedPtr);
  else {
    const below = load<f64>(sortedPtr + ((<usize>(k - 1)) << 3));
    const above = load<f64>(sortedPtr + ((<usize>k) << 3));
    width = below + fraction * (above - below);
  }
  store<f64>(outPtr, width);
  return OK;
}

/** Writes lower = max(p - halfWidth, 0) and upper = p + halfWidth for n predictions. */
export function intervalBounds(pPtr: usize, n: i32, halfWidth: f64, lowerPtr: usize, upperPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  if (!isFinite(halfWidth) || halfWidth < 0) return ERR_NOT_FINITE;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const p = load<f64>(pPtr + offset);
    store<f64>(lowerPtr + offset, Math.max(p - halfWidth, 0));
    store<f64>(upperPtr + offset, p + halfWidth);
  }
  return OK;
}

/** Number of the n rows with lower <= y <= upper (measured coverage); negative status on bad input. */
export function countCovered(yPtr: usize, lowerPtr: usize, upperPtr: usize, n: i32): i32 {
  if (n < 0) return ERR_DIMENSION;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const y = load<f64>(yPtr + offset);
    if (!isFinite(y)) return ERR_NOT_FINITE;
    if (y >= load<f64>(lowerPtr + offset) && y <= load<f64>(upperPtr + offset)) count++;
  }
  return count;
}
