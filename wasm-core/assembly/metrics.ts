// Accuracy metrics stored in model metadata (kepler-model-server trainer/__init__.py get_mae/get_mape).
//
// mean absolute error = sklearn.metrics.mean_absolute_error: mean(|y - p|).
// max absolute error = max(|y - p|), the worst single row (what `kepler-model evaluate` reports
// beside MAE and MAPE).
// mean absolute percentage error = the reference's own formula, mean(|y - p| / y) * 100 over the
// rows with y > 0, and -1 when no row has y > 0 (not sklearn's MAPE, which divides by max(|y|, eps)).
// Non-finite inputs are refused (sklearn raises "Input contains NaN").
import { ERR_DIMENSION, ERR_NOT_FINITE, OK } from "./status";

/** Writes mean(|y - p|) over n rows to outPtr. n = 0 is a dimension error. */
export function meanAbsoluteError(yPtr: usize, pPtr: usize, n: i32, outPtr: usize): i32 {
  if (n <= 0) return ERR_DIMENSION;
  let sum: f64 = 0;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const y = load<f64>(yPtr + offset);
    const p = load<f64>(pPtr + offset);
    if (!isFinite(y) || !isFinite(p)) return ERR_NOT_FINITE;
    sum += Math.abs(y - p);
  }
  store<f64>(outPtr, sum / <f64>n);
  return OK;
}

/** Writes mean(|y - p| / y) * 100 over rows with y > 0 to outPtr, or -1 when there is none. */
export function meanAbsolutePercentageError(yPtr: usize, pPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  let sum: f64 = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const y = load<f64>(yPtr + offset);
    const p = load<f64>(pPtr + offset);
    if (!isFinite(y) || !isFinite(p)) return ERR_NOT_FINITE;
    if (y > 0) {
      sum += Math.abs(y - p) / y;
      count++;
    }
  }
  store<f64>(outPtr, count == 0 ? -1.0 : (sum / <f64>count) * 100);
  return OK;
}

/** Writes max(|y - p|) over n rows to outPtr. n = 0 is a dimension error. */
export function maxAbsoluteError(yPtr: usize, pPtr: usize, n: i32, outPtr: usize): i32 {
  if (n <= 0) return ERR_DIMENSION;
  let worst: f64 = 0;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    const y = load<f64>(yPtr + offset);
    const p = load<f64>(pPtr + offset);
    if (!isFinite(y) || !isFinite(p)) return ERR_NOT_FINITE;
    worst = Math.max(worst, Math.abs(y - p));
  }
  store<f64>(outPtr, worst);
  return OK;
}

/** Writes p - y per row to outPtr (the residuals a report plots). */
export function residuals(yPtr: usize, pPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    store<f64>(outPtr + offset, load<f64>(pPtr + offset) - load<f64>(yPtr + offset));
  }
  return OK;
}
