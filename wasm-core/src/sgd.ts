import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** A model fitted by SGD, with what is needed to continue training it. */
export interface SgdModel {
  coefficients: Float64Array;
  intercept: number;
  /** sklearn's t_: 1 + number of samples seen; the learning rate is eta0 / t^power_t. */
  t: number;
  /** Epochs run by the last fit (sklearn's n_iter_). */
  epochs: number;
  /** False when the last fit stopped at maxIter (sklearn warns with ConvergenceWarning). */
  converged: boolean;
}

/** Options of fitSgd; the defaults are sklearn SGDRegressor's. */
export interface FitSgdOptions {
  /** sklearn random_state: the same seed visits the samples in the same order as sklearn. */
  seed: number;
  /**
   * Continue from this model's coefficients, intercept and t, as sklearn's partial_fit does (the
   * reference's checkpoint continuation). sklearn's fit with warm_start=True keeps the weights but
   * restarts t at 1: pass `{ ...model, t: 1 }` for that.
   */
  warmStart?: SgdModel;
  alpha?: number;
  eta0?: number;
  powerT?: number;
  maxIter?: number;
  /** Stopping tolerance on the epoch loss sum; null disables the criterion (sklearn tol=None). */
  tol?: number | null;
  nIterNoChange?: number;
}

/**
 * sklearn SGDRegressor (squared loss, L2, invscaling, shuffle, fit_intercept) fitted in wasm.
 * Throws WasmKernelError (notFinite) on NaN input or when the weights overflow.
 */
export function fitSgd(x: Matrix | WasmMatrix, y: ArrayLike<number> | F64Buffer, options: FitSgdOptions): SgdModel {
  assertMatrix(x, "fitSgd x");
  if (y.length !== x.rows) throw new RangeError(`fitSgd: ${x.rows} rows but ${y.length} targets`);
  const { seed } = options;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new RangeError(`fitSgd: seed must be an integer in [0, 2^32), got ${seed}`);
  const p = x.cols;
  const warm = options.warmStart;
  if (warm && warm.coefficients.length !== p)
    throw new RangeError(`fitSgd: warm start has ${warm.coefficients.length} coefficients, x has ${p} columns`);
  const params = [
    options.alpha ?? 1e-4,
    options.eta0 ?? 0.01,
    options.powerT ?? 0.25,
    options.maxIter ?? 1000,
    options.tol === null ? Number.NEGATIVE_INFINITY : (options.tol ?? 1e-3),
    options.nIterNoChange ?? 5,
    seed,
  ];
  return withResidentMatrix(x, "fitSgd x", (m) =>
    withResidentVector(y, (yb) => {
      const paramBuffer = F64Buffer.from(params);
      const model = F64Buffer.alloc(p + 4);
      return withBuffers([paramBuffer, model], () => {
        const init = model.view();
        init.fill(0);
        if (warm) {
          init.set(warm.coefficients);
          init[p] = warm.intercept;
          init[p + 1] = warm.t;
        } else {
          init[p + 1] = 1;
        }
        assertKernelOk("fitSgd", core().fitSgd(m.buffer.ptr, m.rows, p, yb.ptr, paramBuffer.ptr, model.ptr));
        const out = model.toArray();
        return {
          coefficients: out.slice(0, p),
          intercept: out[p]!,
          t: out[p + 1]!,
          epochs: out[p + 2]!,
          converged: out[p + 3] === 1,
        };
      });
    }),
  );
}
