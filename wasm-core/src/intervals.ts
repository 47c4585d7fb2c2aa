// Split-conformal prediction intervals (kernels in wasm-core/assembly/intervals.ts).
import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** |y - predicted| per row, sorted ascending: a model's calibration residuals. Throws on non-finite input. */
export function sortedAbsoluteResiduals(y: ArrayLike<number>, predicted: ArrayLike<number>): Float64Array {
  if (y.length !== predicted.length)
    throw new RangeError(`sortedAbsoluteResiduals: ${y.length} targets but ${predicted.length} predictions`);
  const yb = F64Buffer.from(y);
  const pb = F64Buffer.from(predicted);
  const out = F64Buffer.alloc(y.length);
  return withBuffers([yb, pb, out], () => {
    assertKernelOk("sortedAbsResiduals", core().sortedAbsResiduals(yb.ptr, pb.ptr, y.length, out.ptr));
    return out.toArray();
  });
}

/**
 * The interval half width at `level` (0 < level < 1) from sorted absolute residuals: their order statistic at
 * level * (n + 1), interpolated (see the kernel). Throws a RangeError for an empty list or a level outside (0, 1).
 */
export function conformalHalfWidth(sortedResiduals: ArrayLike<number>, level: number): number {
  if (sortedResiduals.length === 0) throw new RangeError("conformalHalfWidth: no calibration residuals");
  if (!(level > 0 && level < 1)) throw new RangeError(`conformalHalfWidth: level must be strictly between 0 and 1, got ${level}`);
  const sorted = F64Buffer.from(sortedResiduals);
  const out = F64Buffer.alloc(1);
  return withBuffers([sorted, out], () => {
    assertKernelOk("conformalHalfWidth", core().conformalHalfWidth(sorted.ptr, sortedResiduals.length, level, out.ptr));
    return out.view()[0]!;
  });
}

/** Interval bounds around predictions: lower = max(p - halfWidth, 0), upper = p + halfWidth. */
export function predictionBounds(
  predicted: ArrayLike<number>,
  halfWidth: number,
): { lowerWatts: Float64Array; upperWatts: Float64Array } {
  const pb = F64Buffer.from(predicted);
  const lower = F64Buffer.alloc(predicted.length);
  const upper = F64Buffer.alloc(predicted.length);
  return withBuffers([pb, lower, upper], () => {
    assertKernelOk("intervalBounds", core().intervalBounds(pb.ptr, predicted.length, halfWidth, lower.ptr, upper.ptr));
    return { lowerWatts: lower.toArray(), upperWatts: upper.toArray() };
  });
}

/** How many rows have lower <= y <= upper (coverage = this / rows). */
export function countCovered(y: ArrayLike<number>, lower: ArrayLike<number>, upper: ArrayLike<number>): number {
  if (lower.length !== y.length || upper.length !== y.length)
    throw new RangeError(`countCovered: ${y.length} targets but ${lower.length} lower and ${upper.length} upper bounds`);
  const yb = F64Buffer.from(y);
  const lb = F64Buffer.from(lower);
  const ub = F64Buffer.from(upper);
  return withBuffers([yb, lb, ub], () => {
    const count = core().countCovered(yb.ptr, lb.ptr, ub.ptr, y.length);
    assertKernelOk("countCovered", count < 0 ? count : 0);
    return count;
  });
}
