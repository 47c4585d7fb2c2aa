import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** Options of fitSvr; the defaults are the reference's SVR(C=1.0, epsilon=0.2), RBF, gamma "scale". */
export interface FitSvrOptions {
  c?: number;
  epsilon?: number;
  /** "scale" = 1 / (features * Var(X)) (sklearn's default), or a positive number. */
  gamma?: "scale" | number;
  /** Stopping tolerance on the maximal KKT violation (libsvm's eps). */
  tol?: number;
  /** Bytes of float32 kernel rows kept; the whole kernel matrix when it fits (default 256 MiB). */
  cacheBytes?: number;
  /** Iteration limit; by default libsvm's max(10^7, 100 * 2 * rows). */
  maxIter?: number;
}

/** A fitted epsilon-SVR: f(x) = sum_s dualCoef_s exp(-gamma |sv_s - x|^2) + intercept. */
export interface SvrModel {
  /** The support vectors, one row each (column-major, as every Matrix here). */
  supportVectors: Matrix;
  /** alpha+ - alpha- per support vector (sklearn's dual_coef_). */
  dualCoef: Float64Array;
  /** -rho (sklearn's intercept_). */
  intercept: number;
  gamma: number;
  iterations: number;
  /** False when the iteration limit stopped the solver (sklearn warns with ConvergenceWarning). */
  converged: boolean;
}

const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * sklearn SVR(kernel="rbf") fitted in wasm by SMO (libsvm's WSS 3). Throws WasmKernelError
 * (tooFewRows) for fewer than 2 rows, (notFinite) for NaN/inf, (dimension) for a non-positive C or
 * tol or a negative epsilon.
 */
export function fitSvr(x: Matrix | WasmMatrix, y: ArrayLike<number> | F64Buffer, options: FitSvrOptions = {}): SvrModel {
  assertMatrix(x, "fitSvr x");
  if (y.length !== x.rows) throw new RangeError(`fitSvr: ${x.rows} rows but ${y.length} targets`);
  const gamma = options.gamma ?? "scale";
  if (gamma !== "scale" && !(gamma > 0)) throw new RangeError(`fitSvr: gamma must be "scale" or positive, got ${gamma}`);
  const params = [
    options.c ?? 1,
    options.epsilon ?? 0.2,
    gamma === "scale" ? 0 : gamma,
    options.tol ?? 1e-3,
    options.cacheBytes ?? DEFAULT_CACHE_BYTES,
    options.maxIter ?? 0,
  ];
  return withResidentMatrix(x, "fitSvr x", (m) =>
    withResidentVector(y, (yb) => {
      const paramBuffer = F64Buffer.from(params);
      const sv = F64Buffer.alloc(m.rows * m.cols);
      const coef = F64Buffer.alloc(m.rows);
      const info = F64Buffer.alloc(5);
      return withBuffers([paramBuffer, sv, coef, info], () => {
        assertKernelOk(
          "fitSvr",
          core().fitSvr(m.buffer.ptr, m.rows, m.cols, yb.ptr, paramBuffer.ptr, sv.ptr, coef.ptr, info.ptr),
        );
        const [rho, fittedGamma, iterations, converged, count] = info.toArray() as unknown as [
          number,
          number,
          number,
          number,
          number,
        ];
        return {
          supportVectors: { rows: count, cols: m.cols, values: sv.view().slice(0, count * m.cols) },
          dualCoef: coef.view().slice(0, count),
          intercept: -rho,
          gamma: fittedGamma,
          iterations,
          converged: converged === 1,
        };
      });
    }),
  );
}

/** The part of an SVR model prediction needs. */
export type SvrPredictor = Pick<SvrModel, "supportVectors" | "dualCoef" | "intercept" | "gamma">;

/** Predicts every row of x. Throws WasmKernelError (notFinite) on NaN/inf, RangeError on a shape mismatch. */
export function predictSvr(model: SvrPredictor, x: Matrix | WasmMatrix): Float64Array {
  assertMatrix(model.supportVectors, "predictSvr supportVectors");
  if (model.dualCoef.length !== model.supportVectors.rows) {
    throw new RangeError(`predictSvr: ${model.supportVectors.rows} support vectors but ${model.dualCoef.length} coefficients`);
  }
  if (x.cols !== model.supportVectors.cols)
    throw new RangeError(`predictSvr: x has ${x.cols} columns, the support vectors ${model.supportVectors.cols}`);
  return withResidentMatrix(model.supportVectors, "predictSvr supportVectors", (sv) =>
    withResidentVector(model.dualCoef, (coef) =>
      withResidentMatrix(x, "predictSvr x", (m) => {
        const out = F64Buffer.alloc(m.rows);
        return withBuffers([out], () => {
          assertKernelOk(
            "predictSvr",
            core().predictSvr(
              sv.buffer.ptr,
              sv.rows,
              sv.cols,
              coef.ptr,
              model.intercept,
              model.gamma,
              m.buffer.ptr,
              m.rows,
              out.ptr,
            ),
          );
          return out.toArray();
        });
      }),
    ),
  );
}
