import { F64Buffer, withBuffers } from "./f64-buffer.js";
import {
  Design,
  type LinearModel,
  type LinearModelSet,
  type PredictLinearOptions,
  designWidth,
  fitDesign,
  predictDesign,
  predictDesignMany,
} from "./linear.js";
import { type Matrix, type WasmMatrix, withResidentMatrix } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** Number of columns of the degree-2 expansion (with bias) of p features: 1 + p + p(p+1)/2. */
export function polynomialWidth(p: number): number {
  return designWidth(Design.polynomial2, p);
}

/**
 * sklearn PolynomialFeatures(degree=2, include_bias=True): columns 1, x0..x(p-1), then x_i*x_j for
 * i <= j in lexicographic order (x0^2, x0x1, .., x1^2, ..).
 */
export function polynomialFeatures(x: Matrix | WasmMatrix, degree: 2): Matrix {
  if (degree !== 2) throw new RangeError(`polynomialFeatures: only degree 2 is supported, got ${degree}`);
  return withResidentMatrix(x, "polynomialFeatures x", (m) => {
    const q = polynomialWidth(m.cols);
    const out = F64Buffer.alloc(m.rows * q);
    return withBuffers([out], () => {
      assertKernelOk("polynomialFeatures2", core().polynomialFeatures2(m.buffer.ptr, m.rows, m.cols, out.ptr));
      return { rows: m.rows, cols: q, values: out.toArray() };
    });
  });
}

/**
 * PolynomialFeatures(degree=2) followed by LinearRegression() in one kernel: the expansion is done
 * row chunk by row chunk, never materialised. Same result as
 * fitLinear(polynomialFeatures(x, 2), y, { positive: false }); coefficients follow polynomialFeatures' columns.
 */
export function fitPolynomialLinear(x: Matrix | WasmMatrix, y: ArrayLike<number> | F64Buffer): LinearModel {
  return fitDesign(x, y, Design.polynomial2, false);
}

/** Predictions of a model from fitPolynomialLinear on the raw (unexpanded) features. */
export function predictPolynomialLinear(
  model: LinearModel,
  x: Matrix | WasmMatrix,
  options: PredictLinearOptions = {},
): Float64Array {
  return predictDesign(model, x, Design.polynomial2, options);
}

/** predictPolynomialLinear for several models on one X (one round trip into wasm for all of them). */
export function predictPolynomialLinearMany(
  models: LinearModelSet,
  x: Matrix | WasmMatrix,
  options: PredictLinearOptions = {},
): Float64Array[] {
  return predictDesignMany(models, x, Design.polynomial2, options);
}
