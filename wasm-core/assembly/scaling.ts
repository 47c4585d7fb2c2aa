// MaxAbs scaling, the only scaler the reference trainers use (kepler-model-server
// trainer/__init__.py: MaxAbsScaler().fit(X_all_rows)).
//
// Matches scikit-learn's MaxAbsScaler: scale_j = max_i |x_ij|, and a column whose maximum is exactly
// 0 gets scale 1.0 (sklearn's _handle_zeros_in_scale). transform divides (X / scale_), it does not
// multiply by a reciprocal, so results are bit-identical to sklearn's. Unlike sklearn (which skips
// NaN with nanmax), a non-finite value is refused with ERR_NOT_FINITE: a model must not be fitted on it.
// Matrices are column-major: x[col * rows + row].
import { ERR_DIMENSION, ERR_NOT_FINITE, OK } from "./status";

/** Writes the per-column MaxAbs scale of the rows x cols matrix at xPtr to scalePtr (cols values). */
export function maxAbsScale(xPtr: usize, rows: i32, cols: i32, scalePtr: usize): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  const n = <usize>rows;
  const inf = f64x2.splat(Infinity);
  for (let j = 0; j < cols; j++) {
    const col = xPtr + ((<usize>j * n) << 3);
    let best = f64x2.splat(0);
    let finite = true;
    let i: usize = 0;
    for (; i + 2 <= n; i += 2) {
      const a = f64x2.abs(v128.load(col + (i << 3)));
      // abs(NaN) and inf both fail `< inf`; checked once per column below
      if (!v128.all_true<i64>(f64x2.lt(a, inf))) finite = false;
      best = f64x2.max(best, a);
    }
    let m = Math.max(f64x2.extract_lane(best, 0), f64x2.extract_lane(best, 1));
    for (; i < n; i++) {
      const a = Math.abs(load<f64>(col + (i << 3)));
      if (!(a < Infinity)) finite = false;
      m = Math.max(m, a);
    }
    if (!finite) return ERR_NOT_FINITE;
    store<f64>(scalePtr + ((<usize>j) << 3), m == 0 ? 1.0 : m);
  }
  return OK;
}

/** Writes x / scale (per column) to outPtr; outPtr may equal xPtr. A zero scale is refused. */
export function applyScale(xPtr: usize, rows: i32, cols: i32, scalePtr: usize, outPtr: usize): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  const n = <usize>rows;
  for (let j = 0; j < cols; j++) {
    const s = load<f64>(scalePtr + ((<usize>j) << 3));
    if (!(s != 0) || !isFinite(s)) return ERR_NOT_FINITE;
  }
  for (let j = 0; j < cols; j++) {
    const s = load<f64>(scalePtr + ((<usize>j) << 3));
    const sv = f64x2.splat(s);
    const offset = (<usize>j * n) << 3;
    const src = xPtr + offset;
    const dst = outPtr + offset;
    let i: usize = 0;
    for (; i + 2 <= n; i += 2) v128.store(dst + (i << 3), f64x2.div(v128.load(src + (i << 3)), sv));
    for (; i < n; i++) store<f64>(dst + (i << 3), load<f64>(src + (i << 3)) / s);
  }
  return OK;
}
