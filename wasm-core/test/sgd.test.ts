import { describe, expect, it } from "vitest";
import { fitLinear, fitSgd, predictLinear } from "../src/index.js";
import { goldens, matrixOf, maxRelativeDifference } from "./trainer-goldens.js";

const g = goldens.sgd;
const x = matrixOf(g.rows, g.cols, g.x);

describe("fitSgd (sklearn SGDRegressor defaults)", () => {
  it("reproduces SGDRegressor(random_state=seed): same epochs and t, weights within 1e-9", () => {
    for (const seed of [0, 3]) {
      const golden = g.fits[String(seed)]!;
      const model = fitSgd(x, g.y, { seed });
      expect(model.epochs).toBe(golden.n_iter);
      expect(model.t).toBe(golden.t);
      expect(model.converged).toBe(true);
      expect(maxRelativeDifference(model.coefficients, golden.coef)).toBeLessThan(1e-9);
      expect(Math.abs(model.intercept - golden.intercept)).toBeLessThan(1e-9);
    }
  });

  it("stops at maxIter without converging (tol null = sklearn tol=None)", () => {
    const golden = g.fits["max_iter3_tol_none"]!;
    const model = fitSgd(x, g.y, { seed: 0, maxIter: 3, tol: null });
    expect(model.epochs).toBe(3);
    expect(model.converged).toBe(false);
    expect(model.t).toBe(golden.t);
    expect(maxRelativeDifference(model.coefficients, golden.coef)).toBeLessThan(1e-9);
  });

  it("continues from a previous model like sklearn's partial_fit (coef, intercept and t carried over)", () => {
    const golden = g.fits["partial_fit_twice"]!;
    const first = fitSgd(x, g.y, { seed: 0, maxIter: 1 });
    const second = fitSgd(x, g.y, { seed: 0, maxIter: 1, warmStart: first });
    expect(second.t).toBe(401);
    expect(maxRelativeDifference(second.coefficients, golden.coef)).toBeLessThan(1e-9);
    expect(Math.abs(second.intercept - golden.intercept)).toBeLessThan(1e-9);
  });

  it("lands near the least-squares solution on a well-conditioned problem", () => {
    const sgd = fitSgd(x, g.y, { seed: 0 });
    const ols = fitLinear(x, g.y, { positive: false });
    expect(maxRelativeDifference(ols.coefficients, g.ols.coef)).toBeLessThan(1e-9);
    const a = predictLinear(sgd, x);
    const b = predictLinear(ols, x);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!) / b[i]!);
    expect(worst).toBeLessThan(0.01);
  });

  it("is reproducible for a seed and differs across seeds", () => {
    const a = fitSgd(x, g.y, { seed: 11 });
    const b = fitSgd(x, g.y, { seed: 11 });
    const c = fitSgd(x, g.y, { seed: 12 });
    expect(Array.from(b.coefficients)).toEqual(Array.from(a.coefficients));
    expect(b.intercept).toBe(a.intercept);
    expect(Array.from(c.coefficients)).not.toEqual(Array.from(a.coefficients));
  });

  it("refuses NaN, diverging weights, no rows and bad seeds", () => {
    expect(() => fitSgd(matrixOf(2, 1, [1, Number.NaN]), [1, 2], { seed: 0 })).toThrow("fitSgd: input contains NaN or infinity");
    expect(() => fitSgd(matrixOf(2, 1, [1, 2]), [1, 2], { seed: 0, eta0: 1e300 })).toThrow(
      "fitSgd: input contains NaN or infinity",
    );
    expect(() => fitSgd(matrixOf(0, 1, []), [], { seed: 0 })).toThrow("fitSgd: too few rows");
    expect(() => fitSgd(x, g.y, { seed: 1.5 })).toThrow("fitSgd: seed must be an integer in [0, 2^32), got 1.5");
  });
});
