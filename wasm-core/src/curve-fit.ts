import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * The reference's curve-fit trainers: logarithmic a*ln(b*x+1)+c, exponential a*exp(b*x)+c,
 * logistic A/(1+exp(-k*(x-x0)))+off with parameters [A, x0, k, off].
 */
export type CurveKind = "logarithmic" | "exponential" | "logistic";

/** Result of fitCurve. parameters are the last iterate even when converged is false. */
export interface CurveFit {
  kind: CurveKind;
  parameters: Float64Array;
  /** Function evaluations used, Jacobian columns included (MINPACK nfev). */
  evaluations: number;
  /** True when MINPACK's info is 1-4, i.e. when scipy's curve_fit would return instead of raising. */
  converged: boolean;
  /** Why it did not converge (scipy's message for the info code). */
  reason?: string;
}

/** Options of fitCurve. */
export interface FitCurveOptions {
  /** scipy's maxfev; the reference passes 30000. */
  maxEvaluations?: number;
}

const kindCode: Record<CurveKind, number> = { logarithmic: 0, exponential: 1, logistic: 2 };
const parameterCount: Record<CurveKind, number> = { logarithmic: 3, exponential: 3, logistic: 4 };

// scipy.optimize.leastsq's messages for lmdif's info codes (plus ours, 9).
const failureReasons: Record<number, string> = {
  0: "improper input parameters",
  5: "number of calls to function has reached maxfev",
  6: "ftol is too small: no further reduction in the sum of squares is possible",
  7: "xtol is too small: no further improvement in the approximate solution is possible",
  8: "gtol is too small: func(x) is orthogonal to the columns of the Jacobian to machine precision",
  9: "the Jacobian became non-finite (the curve overflows near these parameters)",
};

/**
 * Levenberg-Marquardt like scipy.optimize.curve_fit (method "lm", MINPACK lmdif, forward-difference
 * Jacobian, ftol = xtol = 1.49012e-8, gtol = 0, maxfev 30000 by default) from the given start.
 * A fit that stops without converging is returned with converged = false and the reason; NaN or
 * infinite data or start values throw WasmKernelError (notFinite).
 */
export function fitCurve(
  kind: CurveKind,
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  initial: ArrayLike<number>,
  options: FitCurveOptions = {},
): CurveFit {
  const np = parameterCount[kind];
  if (np === undefined) throw new RangeError(`fitCurve: unknown curve kind ${String(kind)}`);
  if (x.length !== y.length) throw new RangeError(`fitCurve: ${x.length} x values but ${y.length} y values`);
  if (initial.length !== np) throw new RangeError(`fitCurve: ${kind} needs ${np} initial parameters, got ${initial.length}`);
  const maxEvaluations = options.maxEvaluations ?? 30000;
  if (!Number.isInteger(maxEvaluations) || maxEvaluations < 1)
    throw new RangeError(`fitCurve: maxEvaluations must be a positive integer`);
  const xb = F64Buffer.from(x);
  const yb = F64Buffer.from(y);
  const pb = F64Buffer.from(initial);
  const result = F64Buffer.alloc(2);
  return withBuffers([xb, yb, pb, result], () => {
    assertKernelOk("fitCurve", core().fitCurve(kindCode[kind], xb.ptr, yb.ptr, x.length, pb.ptr, maxEvaluations, result.ptr));
    const [info, evaluations] = result.toArray();
    const converged = info! >= 1 && info! <= 4;
    const fit: CurveFit = { kind, parameters: pb.toArray(), evaluations: evaluations!, converged };
    if (!converged) fit.reason = failureReasons[info!] ?? `MINPACK info ${info}`;
    return fit;
  });
}

/** The curve evaluated at every x. */
export function predictCurve(kind: CurveKind, parameters: ArrayLike<number>, x: ArrayLike<number>): Float64Array {
  const np = parameterCount[kind];
  if (np === undefined) throw new RangeError(`predictCurve: unknown curve kind ${String(kind)}`);
  if (parameters.length !== np) throw new RangeError(`predictCurve: ${kind} needs ${np} parameters, got ${parameters.length}`);
  const pb = F64Buffer.from(parameters);
  const xb = F64Buffer.from(x);
  const out = F64Buffer.alloc(x.length);
  return withBuffers([pb, xb, out], () => {
    assertKernelOk("predictCurve", core().predictCurve(kindCode[kind], pb.ptr, xb.ptr, x.length, out.ptr));
    return out.toArray();
  });
}
