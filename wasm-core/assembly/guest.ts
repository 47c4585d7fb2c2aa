// Kernels of the VM power path (services/vm-power): the guest's memory gauge as a used fraction, and the
// exporter's energy counter, integrated from modelled watts tick by tick.
import { ERR_DIMENSION, OK } from "./status";

/** out_i = 1 - available_i / total_i, or NaN where total_i is not positive. */
export function usedFraction(availablePtr: usize, totalPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i: usize = 0; i < <usize>n; i++) {
    const total = load<f64>(totalPtr + (i << 3));
    store<f64>(outPtr + (i << 3), total > 0 ? 1.0 - load<f64>(availablePtr + (i << 3)) / total : NaN);
  }
  return OK;
}

/** In place: joules_i += watts_i * seconds for n zones; negative or NaN watts add nothing (the counter never falls). */
export function accumulateEnergy(joulesPtr: usize, wattsPtr: usize, n: i32, seconds: f64): i32 {
  if (n < 0) return ERR_DIMENSION;
  if (!(seconds >= 0)) return ERR_DIMENSION;
  for (let i: usize = 0; i < <usize>n; i++) {
    const watts = load<f64>(wattsPtr + (i << 3));
    if (watts > 0) store<f64>(joulesPtr + (i << 3), load<f64>(joulesPtr + (i << 3)) + watts * seconds);
  }
  return OK;
}
