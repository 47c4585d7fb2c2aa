// The reference's curve-fit starting points p0 (LogarithmicRegressionTrainer, ExponentialRegressionTrainer,
// LogisticRegressionTrainer main.py), computed from the training labels' min, max and population std.
import type { CurveFunction } from "../../../models/index.js";

/** Statistics of the training labels the starting points need. */
export interface LabelStats {
  min: number;
  max: number;
  /** Population standard deviation (numpy's np.std). */
  std: number;
}

/**
 * Python's float floor division `a // b` (CPython float_floor_div, which numpy's floor_divide follows):
 * (a - fmod(a, b)) / b, corrected toward floor, rather than Math.floor(a / b), which can round up to
 * the next integer when a / b is just below it. 0 // 0 and x // 0 give NaN and +-Infinity as numpy does.
 */
export function pythonFloorDiv(a: number, b: number): number {
  if (b === 0) return a === 0 || Number.isNaN(a) ? Number.NaN : a > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  const mod = a % b;
  let div = (a - mod) / b;
  if (mod !== 0 && b < 0 !== mod < 0) div -= 1;
  let floorDiv: number;
  if (div !== 0) {
    floorDiv = Math.floor(div);
    if (div - floorDiv > 0.5) floorDiv += 1;
  } else {
    floorDiv = Math.sign(a / b) * 0;
  }
  return floorDiv;
}

/** p0 exactly as the reference: log [max-min, 1, min]; exp [a=(max-min)//e, 1, min-a]; logistic [A=max-min, 0.5, A//std, min]. */
export function curveStartingPoint(kind: CurveFunction, stats: LabelStats): number[] {
  const range = stats.max - stats.min;
  switch (kind) {
    case "logarithmic":
      return [range, 1, stats.min];
    case "exponential": {
      const a = pythonFloorDiv(range, Math.E);
      return [a, 1, stats.min - a];
    }
    case "logistic":
      return [range, 0.5, pythonFloorDiv(range, stats.std), stats.min];
  }
}

/**
 * The exact fit of a constant label (max == min, e.g. rapl core/uncore that are always 0): the curve
 * reduced to its offset. For log and exp this is the reference's p0, which scipy returns unchanged; for
 * logistic the reference's p0 has k = 0 // 0 = NaN and the whole trainer fails, we use k = 0
 * (docs/deviations.md).
 */
export function constantCurve(kind: CurveFunction, value: number): number[] {
  return kind === "logistic" ? [0, 0.5, 0, value] : [0, 1, value];
}
