// Pearson correlation of table columns with one target column: the reference's find_correlations
// (train/extractor/preprocess.py, spec §3.6), which calls pandas DataFrame.corr(). pandas computes
// each pair with Welford's online update (pandas/_libs/algos.pyx nancorr), skipping rows where either
// value is NaN; this kernel follows the same recurrence with the target as the first variable.
import { OK, ERR_DIMENSION } from "./status";

/**
 * out[c] = Pearson r between column c of x (column-major, rows x cols) and y. NaN when fewer than
 * two rows are usable or either column is constant (pandas returns NaN there too).
 */
export function pearsonColumns(xPtr: usize, rows: i32, cols: i32, yPtr: usize, outPtr: usize): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  for (let c = 0; c < cols; c++) {
    const column = xPtr + ((<usize>c * <usize>rows) << 3);
    let nobs: f64 = 0;
    let meanY: f64 = 0;
    let meanX: f64 = 0;
    let ssqY: f64 = 0;
    let ssqX: f64 = 0;
    let cov: f64 = 0;
    for (let i = 0; i < rows; i++) {
      const vy = load<f64>(yPtr + ((<usize>i) << 3));
      const vx = load<f64>(column + ((<usize>i) << 3));
      if (Number.isNaN(vx) || Number.isNaN(vy)) continue;
      nobs += 1;
      const dy = vy - meanY;
      const dx = vx - meanX;
      meanY += (1.0 / nobs) * dy;
      meanX += (1.0 / nobs) * dx;
      ssqY += (vy - meanY) * dy;
      ssqX += (vx - meanX) * dx;
      cov += (vy - meanY) * dx;
    }
    const divisor = Math.sqrt(ssqY * ssqX);
    store<f64>(outPtr + ((<usize>c) << 3), nobs >= 1 && divisor !== 0 ? cov / divisor : NaN);
  }
  return OK;
}
