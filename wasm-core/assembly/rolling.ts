// Rolling means over table rows: the reference's SmoothExtractor (train/extractor/smooth_extractor.py,
// spec §3.7) replaces each feature and power column by pandas' rolling(window).mean().
import { OK, ERR_DIMENSION } from "./status";

/**
 * out[i] = mean of src[i-window+1 .. i] for i >= window-1, NaN before (pandas rolling(window).mean()
 * with min_periods = window). Each window is summed afresh in order, so no running-sum drift.
 */
export function rollingMean(srcPtr: usize, n: i32, window: i32, outPtr: usize): i32 {
  if (n < 0 || window < 1) return ERR_DIMENSION;
  const w = <f64>window;
  for (let i = 0; i < n; i++) {
    const offset = (<usize>i) << 3;
    if (i < window - 1) {
      store<f64>(outPtr + offset, NaN);
      continue;
    }
    let sum: f64 = 0;
    for (let j = i - window + 1; j <= i; j++) sum += load<f64>(srcPtr + ((<usize>j) << 3));
    store<f64>(outPtr + offset, sum / w);
  }
  return OK;
}
