import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * Gathers the columns `indices` (negative = a column of zeros) of a row-major rows x cols block into a
 * new column-major WasmMatrix; the caller frees its buffer.
 */
export function gatherFeatureColumns(rowMajor: F64Buffer, rows: number, cols: number, indices: readonly number[]): WasmMatrix {
  if (rowMajor.length !== rows * cols)
    throw new RangeError(`gatherFeatureColumns: ${rows} x ${cols} needs ${rows * cols} values, got ${rowMajor.length}`);
  const index = F64Buffer.from(indices);
  const out = F64Buffer.alloc(rows * indices.length);
  try {
    withBuffers([index], () => {
      assertKernelOk(
        "gatherFeatureColumns",
        core().gatherFeatureColumns(rowMajor.ptr, rows, cols, index.ptr, indices.length, out.ptr),
      );
    });
  } catch (error) {
    out.free();
    throw error;
  }
  return { rows, cols: indices.length, buffer: out };
}

/** Index of the first NaN or infinite value, or -1. */
export function firstNonFinite(values: F64Buffer): number {
  return core().firstNonFinite(values.ptr, values.length);
}

/** Kepler's linear weight model: per feature a MaxAbs scale and a weight, plus the bias. */
export interface KeplerLinearWeights {
  scale: ArrayLike<number>;
  weight: ArrayLike<number>;
  bias: number;
}

/** bias + sum weight_j * x_j / scale_j for every row (scale 0 -> the term is 0), as Kepler's regressor. */
export function predictKeplerLinear(x: Matrix | WasmMatrix, weights: KeplerLinearWeights): Float64Array {
  assertMatrix(x, "predictKeplerLinear x");
  if (weights.scale.length !== x.cols || weights.weight.length !== x.cols) {
    throw new RangeError(
      `predictKeplerLinear: ${x.cols} columns but ${weights.scale.length} scales and ${weights.weight.length} weights`,
    );
  }
  return withResidentMatrix(x, "predictKeplerLinear x", (m) => {
    const scale = F64Buffer.from(weights.scale);
    const weight = F64Buffer.from(weights.weight);
    const out = F64Buffer.alloc(m.rows);
    return withBuffers([scale, weight, out], () => {
      assertKernelOk(
        "predictWeightsLinear",
        core().predictWeightsLinear(m.buffer.ptr, m.rows, m.cols, scale.ptr, weight.ptr, weights.bias, out.ptr),
      );
      return out.toArray();
    });
  });
}

/** x / divisor (zeros when divisor is 0), e.g. a curve fit's scaled input. */
export function divideOrZero(x: ArrayLike<number>, divisor: number): Float64Array {
  const input = F64Buffer.from(x);
  const out = F64Buffer.alloc(x.length);
  return withBuffers([input, out], () => {
    assertKernelOk("divideOrZero", core().divideOrZero(input.ptr, x.length, divisor, out.ptr));
    return out.toArray();
  });
}

/** A copy of `values` with negatives and NaN replaced by 0 (the reference estimator's y[y < 0] = 0). */
export function clampNonNegative(values: ArrayLike<number>): Float64Array {
  const buffer = F64Buffer.from(values);
  return withBuffers([buffer], () => {
    assertKernelOk("clampNonNegative", core().clampNonNegative(buffer.ptr, values.length));
    return buffer.toArray();
  });
}
