// Kernels of the estimator's predict path (services/estimator): turning Kepler's row-major request
// values into the column-major matrix a model reads, Kepler's linear weight formula, and the
// reference estimator's clamp of negative predictions.
//
// Kepler's local regressor (kepler pkg/model/estimator/local/regressor/linear.go, v0.7.12-v0.9.0):
//   x'_j = x_j / scale_j, or 0 when scale_j == 0;  power = bias + sum over j with weight_j != 0 of weight_j * x'_j,
// summed in feature order. The Python estimator clamps with y[y < 0] = 0 (estimate/model/estimate_common.py).
import { ERR_DIMENSION, OK } from "./status";

/**
 * Gathers columns of a row-major rows x srcCols block (src[i * srcCols + c]) into a column-major
 * rows x nOut matrix: out[j * rows + i] = src[i * srcCols + index_j]. A negative index (a feature the
 * request does not carry) gives a column of zeros. Indices are f64 values.
 */
export function gatherFeatureColumns(srcPtr: usize, rows: i32, srcCols: i32, indexPtr: usize, nOut: i32, outPtr: usize): i32 {
  if (rows < 0 || srcCols < 0 || nOut < 0) return ERR_DIMENSION;
  for (let j = 0; j < nOut; j++) {
    const c = load<f64>(indexPtr + ((<usize>j) << 3));
    if (c >= <f64>srcCols || c != Math.floor(c)) return ERR_DIMENSION;
  }
  const n = <usize>rows;
  const stride = (<usize>srcCols) << 3;
  for (let j = 0; j < nOut; j++) {
    const c = load<f64>(indexPtr + ((<usize>j) << 3));
    const dst = outPtr + ((<usize>j * n) << 3);
    if (c < 0) {
      memory.fill(dst, 0, n << 3);
      continue;
    }
    let src = srcPtr + ((<usize>(<i32>c)) << 3);
    for (let i: usize = 0; i < n; i++) {
      store<f64>(dst + (i << 3), load<f64>(src));
      src += stride;
    }
  }
  return OK;
}

/** Index of the first NaN or infinite value among n values, or -1 when all are finite. */
export function firstNonFinite(ptr: usize, n: i32): i32 {
  for (let i = 0; i < n; i++) {
    if (!isFinite(load<f64>(ptr + ((<usize>i) << 3)))) return i;
  }
  return -1;
}

/**
 * Kepler's linear regressor on a column-major rows x p matrix: out_i = bias + sum_j weight_j * x'_ij
 * with x'_ij = x_ij / scale_j (0 when scale_j == 0); terms with weight_j == 0 are skipped, as Kepler does.
 */
export function predictWeightsLinear(
  xPtr: usize,
  rows: i32,
  p: i32,
  scalePtr: usize,
  weightPtr: usize,
  bias: f64,
  outPtr: usize,
): i32 {
  if (rows < 0 || p < 0) return ERR_DIMENSION;
  const n = <usize>rows;
  for (let i: usize = 0; i < n; i++) store<f64>(outPtr + (i << 3), bias);
  for (let j = 0; j < p; j++) {
    const w = load<f64>(weightPtr + ((<usize>j) << 3));
    const s = load<f64>(scalePtr + ((<usize>j) << 3));
    if (w == 0 || s == 0) continue;
    const col = xPtr + ((<usize>j * n) << 3);
    for (let i: usize = 0; i < n; i++) {
      const o = outPtr + (i << 3);
      store<f64>(o, load<f64>(o) + w * (load<f64>(col + (i << 3)) / s));
    }
  }
  return OK;
}

/** x / divisor for n values (Kepler's scaling of a curve fit's input), or zeros when divisor == 0. */
export function divideOrZero(xPtr: usize, n: i32, divisor: f64, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i: usize = 0; i < <usize>n; i++) {
    store<f64>(outPtr + (i << 3), divisor == 0 ? 0.0 : load<f64>(xPtr + (i << 3)) / divisor);
  }
  return OK;
}

/** In place: negative values (and NaN, which the contract cannot carry as watts) become 0. */
export function clampNonNegative(ptr: usize, n: i32): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i: usize = 0; i < <usize>n; i++) {
    const at = ptr + (i << 3);
    if (!(load<f64>(at) >= 0)) store<f64>(at, 0.0);
  }
  return OK;
}
