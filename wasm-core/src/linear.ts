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

/** Several linear models (an estimate's components) packed once, for predictLinearMany. */
export interface LinearModelSet {
  readonly count: number;
  /** Coefficients per model. */
  readonly width: number;
  /** Model after model. */
  readonly coefficients: Float64Array;
  readonly intercepts: Float64Array;
}

/** Packs models with the same number of coefficients. */
export function linearModelSet(models: readonly LinearModel[]): LinearModelSet {
  const width = models[0]?.coefficients.length ?? 0;
  const coefficients = new Float64Array(models.length * width);
  models.forEach((model, index) => {
    if (model.coefficients.length !== width)
      throw new RangeError(`linearModelSet: model ${index} has ${model.coefficients.length} coefficients, model 0 has ${width}`);
    coefficients.set(model.coefficients, index * width);
  });
  return { count: models.length, width, coefficients, intercepts: Float64Array.from(models, (model) => model.intercept) };
}

/**
 * Several models of the same design on one X: one copy of the coefficients into wasm, one clamp and one
 * copy of the predictions out for all of them. Returns one prediction array per model (views of one block).
 */
export function predictDesignMany(
  models: LinearModelSet,
  x: Matrix | WasmMatrix,
  design: number,
  options: PredictLinearOptions = {},
): Float64Array[] {
  assertMatrix(x, "predictLinear x");
  const q = designWidth(design, x.cols);
  if (models.width !== q) throw new RangeError(`predictLinear: models have ${models.width} coefficients, x gives ${q} columns`);
  return withResidentMatrix(x, "predictLinear x", (m) => {
    const coef = F64Buffer.from(models.coefficients);
    const out = F64Buffer.alloc(models.count * m.rows);
    try {
      for (let index = 0; index < models.count; index++) {
        assertKernelOk(
          "predictLinear",
          core().predictLinear(
            m.buffer.ptr,
            m.rows,
            m.cols,
            design,
            coef.ptr + index * q * 8,
            models.intercepts[index]!,
            out.ptr + index * m.rows * 8,
          ),
        );
      }
      if (options.clampNonNegative === true)
        assertKernelOk("clampNonNegative", core().clampNonNegative(out.ptr, models.count * m.rows));
      const all = out.toArray();
      const predictions: Float64Array[] = [];
      for (let index = 0; index < models.count; index++) predictions.push(all.subarray(index * m.rows, (index + 1) * m.rows));
      return predictions;
    } finally {
      coef.free();
      out.free();
    }
  });
}

/** predictLinear for several models on one X (see predictDesignMany). */
export function predictLinearMany(
  models: LinearModelSet,
  x: Matrix | WasmMatrix,
  options: PredictLinearOptions = {},
): Float64Array[] {
  return predictDesignMany(models, x, Design.asIs, options);
}

/** intercept + X coefficients for every row of X. */
export function predictLinear(model: LinearModel, x: Matrix | WasmMatrix, options: PredictLinearOptions = {}): Float64Array {
  return predictDesign(model, x, Design.asIs, options);
}
