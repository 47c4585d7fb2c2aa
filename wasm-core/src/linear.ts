import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** A linear model: prediction = intercept + Σ coefficients[j] * x[j]. */
export interface LinearModel {
  coefficients: Float64Array;
  intercept: number;
}

/** Options of fitLinear. */
export interface FitLinearOptions {
  /** Constrain every coefficient to be >= 0 (sklearn LinearRegression(positive=True)); the intercept stays free. */
  positive: boolean;
}

/** How the kernel sees X: as given, or expanded to degree-2 polynomial features on the fly. */
export const Design = { asIs: 0, polynomial2: 1 } as const;

/** Number of model columns for p inputs under a design. */
export function designWidth(design: number, p: number): number {
  return design === Design.polynomial2 ? 1 + p + (p * (p + 1)) / 2 : p;
}

/** Shared by fitLinear and fitPolynomialLinear. */
export function fitDesign(
  x: Matrix | WasmMatrix,
  y: ArrayLike<number> | F64Buffer,
  design: number,
  positive: boolean,
): LinearModel {
  assertMatrix(x, "fitLinear x");
  if (y.length !== x.rows) throw new RangeError(`fitLinear: ${x.rows} rows but ${y.length} targets`);
  const q = designWidth(design, x.cols);
  return withResidentMatrix(x, "fitLinear x", (m) =>
    withResidentVector(y, (yb) => {
      const out = F64Buffer.alloc(q + 1);
      return withBuffers([out], () => {
        assertKernelOk("fitLinear", core().fitLinear(m.buffer.ptr, m.rows, m.cols, yb.ptr, design, positive ? 1 : 0, out.ptr));
        const values = out.toArray();
        return { coefficients: values.slice(0, q), intercept: values[q]! };
      });
    }),
  );
}

/**
 * sklearn LinearRegression(fit_intercept=True): least squares on the centred data (minimum-norm
 * when rank deficient), or NNLS when positive (as sklearn calls scipy.optimize.nnls). X stays in
 * place when already resident in wasm. Throws WasmKernelError on NaN/infinity or no rows.
 */
export function fitLinear(x: Matrix | WasmMatrix, y: ArrayLike<number> | F64Buffer, options: FitLinearOptions): LinearModel {
  return fitDesign(x, y, Design.asIs, options.positive);
}

/** Options of a linear prediction. */
export interface PredictLinearOptions {
  /** Negative predictions become 0 (the estimator's y[y < 0] = 0), in the same pass through wasm. */
  readonly clampNonNegative?: boolean;
}

/** Shared by predictLinear and predictPolynomialLinear. */
export function predictDesign(
  model: LinearModel,
  x: Matrix | WasmMatrix,
  design: number,
  options: PredictLinearOptions = {},
): Float64Array {
  assertMatrix(x, "predictLinear x");
  const q = designWidth(design, x.cols);
  if (model.coefficients.length !== q) {
    throw new RangeError(`predictLinear: model has ${model.coefficients.length} coefficients, x gives ${q} columns`);
  }
  return withResidentMatrix(x, "predictLinear x", (m) => {
    const coef = F64Buffer.from(model.coefficients);
    const out = F64Buffer.alloc(m.rows);
    return withBuffers([coef, out], () => {
      assertKernelOk(
        "predictLinear",
        core().predictLinear(m.buffer.ptr, m.rows, m.cols, design, coef.ptr, model.intercept, out.ptr),
      );
      if (options.clampNonNegative === true) assertKernelOk("clampNonNegative", core().clampNonNegative(out.ptr, m.rows));
      return out.toArray();
    });
  });
}

/**
 * Several models of the same design on one X (an estimate's components): one copy of the coefficients
 * into wasm and one of the predictions out, instead of one round trip per model. Returns one
 * prediction array per model (views of one block).
 */
export function predictDesignMany(
  models: readonly LinearModel[],
  x: Matrix | WasmMatrix,
  design: number,
  options: PredictLinearOptions = {},
): Float64Array[] {
  assertMatrix(x, "predictLinear x");
  const q = designWidth(design, x.cols);
  const coefficients = new Float64Array(models.length * q);
  models.forEach((model, index) => {
    if (model.coefficients.length !== q) {
      throw new RangeError(`predictLinear: model has ${model.coefficients.length} coefficients, x gives ${q} columns`);
    }
    coefficients.set(model.coefficients, index * q);
  });
  return withResidentMatrix(x, "predictLinear x", (m) => {
    const coef = F64Buffer.from(coefficients);
    const out = F64Buffer.alloc(models.length * m.rows);
    return withBuffers([coef, out], () => {
      models.forEach((model, index) => {
        const target = out.ptr + index * m.rows * 8;
        assertKernelOk(
          "predictLinear",
          core().predictLinear(m.buffer.ptr, m.rows, m.cols, design, coef.ptr + index * q * 8, model.intercept, target),
        );
        if (options.clampNonNegative === true) assertKernelOk("clampNonNegative", core().clampNonNegative(target, m.rows));
      });
      const all = out.toArray();
      return models.map((_, index) => all.subarray(index * m.rows, (index + 1) * m.rows));
    });
  });
}

/** predictLinear for several models on one X (see predictDesignMany). */
export function predictLinearMany(
  models: readonly LinearModel[],
  x: Matrix | WasmMatrix,
  options: PredictLinearOptions = {},
): Float64Array[] {
  return predictDesignMany(models, x, Design.asIs, options);
}

/** intercept + X coefficients for every row of X. */
export function predictLinear(model: LinearModel, x: Matrix | WasmMatrix, options: PredictLinearOptions = {}): Float64Array {
  return predictDesign(model, x, Design.asIs, options);
}
