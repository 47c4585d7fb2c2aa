// Counter-to-rate conversion, the kernel behind every per-second feature and power column.
//
// Semantics follow Prometheus rate()/increase() on consecutive samples: the increase over an
// interval is v[i] - v[i-1], and a decrease means the counter was reset to zero, so the increase is
// v[i] itself. Each interval is divided by its own time step t[i] - t[i-1] (the reference divides
// power by the mean step; see docs/deviations.md). The reference kepler-model-server instead treats
// a decrease as missing and repeats the previous rate: RESET_REPEAT_PREVIOUS selects that behaviour.
import { OK, ERR_DIMENSION } from "./status";

export const RESET_AS_PROMETHEUS: i32 = 0;
export const RESET_REPEAT_PREVIOUS: i32 = 1;

/**
 * Writes n per-second rates to out. out[0] is NaN (no previous sample); an interval with a
 * non-positive time step gives NaN. Under RESET_REPEAT_PREVIOUS a decrease repeats the previous
 * finite rate (0 when there is none), as the reference's mask(<0) -> ffill -> fillna(0).
 */
export function counterToRate(timestampsPtr: usize, valuesPtr: usize, n: i32, outPtr: usize, resetPolicy: i32): i32 {
  if (n < 0) return ERR_DIMENSION;
  if (n == 0) return OK;
  store<f64>(outPtr, NaN);
  let previousRate: f64 = 0;
  let prevT = load<f64>(timestampsPtr);
  let prevV = load<f64>(valuesPtr);
  for (let i = 1; i < n; i++) {
    const offset = (<usize>i) << 3;
    const t = load<f64>(timestampsPtr + offset);
    const v = load<f64>(valuesPtr + offset);
    const dt = t - prevT;
    let rate: f64;
    if (!(dt > 0)) {
      rate = NaN;
    } else if (v >= prevV) {
      rate = (v - prevV) / dt;
    } else if (resetPolicy == RESET_REPEAT_PREVIOUS) {
      rate = previousRate;
    } else {
      rate = v / dt;
    }
    if (isFinite(rate)) previousRate = rate;
    store<f64>(outPtr + offset, rate);
    prevT = t;
    prevV = v;
  }
  return OK;
}
