import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * Rolling means of selected columns of a column-major table (rows x cols), as pandas
 * rolling(window).mean(): rows before the first full window become NaN. Other columns are copied
 * unchanged. Returns a new column-major block.
 */
export function rollingMeanColumns(
  values: Float64Array,
  rows: number,
  columnIndices: readonly number[],
  window: number,
): Float64Array {
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`rolling window must be a positive integer, got ${window}`);
  const input = F64Buffer.from(values);
  const output = F64Buffer.from(values);
  return withBuffers([input, output], () => {
    const exports = core();
    for (const column of columnIndices) {
      const offset = column * rows * 8;
      assertKernelOk("rollingMean", exports.rollingMean(input.ptr + offset, rows, window, output.ptr + offset));
    }
    return output.toArray();
  });
}
