import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

function metric(
  kernel: "meanAbsoluteError" | "meanAbsolutePercentageError" | "maxAbsoluteError",
  y: ArrayLike<number>,
  predicted: ArrayLike<number>,
): number {
  if (y.length !== predicted.length) throw new RangeError(`${kernel}: ${y.length} targets but ${predicted.length} predictions`);
  const yb = F64Buffer.from(y);
  const pb = F64Buffer.from(predicted);
  const out = F64Buffer.alloc(1);
  return withBuffers([yb, pb, out], () => {
    assertKernelOk(kernel, core()[kernel](yb.ptr, pb.ptr, y.length, out.ptr));
    return out.view()[0]!;
  });
}

/** sklearn's mean_absolute_error: mean |y - predicted|. Throws on empty or non-finite input. */
export function meanAbsoluteError(y: ArrayLike<number>, predicted: ArrayLike<number>): number {
  return metric("meanAbsoluteError", y, predicted);
}

/**
 * The reference's MAPE (kepler-model-server get_mape): mean(|y - predicted| / y) * 100 over rows
 * with y > 0, or -1 when no row has y > 0. A percentage.
 */
export function meanAbsolutePercentageError(y: ArrayLike<number>, predicted: ArrayLike<number>): number {
  return metric("meanAbsolutePercentageError", y, predicted);
}

/** The largest |y - predicted| of any row. Throws on empty or non-finite input. */
export function maxAbsoluteError(y: ArrayLike<number>, predicted: ArrayLike<number>): number {
  return metric("maxAbsoluteError", y, predicted);
}

/** predicted - y per row (the residuals a report plots). */
export function residuals(y: ArrayLike<number>, predicted: ArrayLike<number>): Float64Array {
  if (y.length !== predicted.length) throw new RangeError(`residuals: ${y.length} targets but ${predicted.length} predictions`);
  const yb = F64Buffer.from(y);
  const pb = F64Buffer.from(predicted);
  const out = F64Buffer.alloc(y.length);
  return withBuffers([yb, pb, out], () => {
    assertKernelOk("residuals", core().residuals(yb.ptr, pb.ptr, y.length, out.ptr));
    return out.view().slice();
  });
}
