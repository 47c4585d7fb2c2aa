import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * Pearson correlation of each column of a column-major block (rows x cols) with `target`, computed as
 * pandas DataFrame.corr() does (Welford updates, NaN rows skipped). NaN for a constant column.
 */
export function pearsonWithTarget(columns: Float64Array, rows: number, cols: number, target: Float64Array): Float64Array {
  if (columns.length !== rows * cols)
    throw new RangeError(`pearsonWithTarget: expected ${rows * cols} values, got ${columns.length}`);
  if (target.length !== rows) throw new RangeError(`pearsonWithTarget: expected ${rows} target values, got ${target.length}`);
  const x = F64Buffer.from(columns);
  const y = F64Buffer.from(target);
  const out = F64Buffer.alloc(cols);
  return withBuffers([x, y, out], () => {
    assertKernelOk("pearsonColumns", core().pearsonColumns(x.ptr, rows, cols, y.ptr, out.ptr));
    return out.toArray();
  });
}
