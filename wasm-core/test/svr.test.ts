import { describe, expect, it } from "vitest";
import { fitSvr, predictSvr, WasmKernelError } from "../src/index.js";
import { maxRelativeDifference } from "./trainer-goldens.js";
import { caseMatrices, treeSvrGoldens } from "./tree-svr-goldens.js";

describe("fitSvr (sklearn SVR, RBF, C = 1, epsilon = 0.2, gamma scale, libsvm SMO)", () => {
  for (const name of ["smooth", "duplicates"] as const) {
    it(`matches scikit-learn 1.2.1 on the ${name} rows`, () => {
      const g = treeSvrGoldens[name];
      const { x, q } = caseMatrices(g);
      const model = fitSvr(x, g.y);
      expect(model.converged).toBe(true);
      expect(Math.abs(model.gamma - g.svr.gamma) / g.svr.gamma).toBeLessThan(1e-12);
      expect(model.dualCoef.length).toBe(g.svr.n_support);
      // libsvm stops at tol 1e-3 on the KKT gap; the same SMO path gives the same solution
      expect(maxRelativeDifference(model.dualCoef, g.svr.dual_coef)).toBeLessThan(1e-9);
      expect(Math.abs(model.intercept - g.svr.intercept)).toBeLessThan(1e-9 * Math.abs(g.svr.intercept));
      expect(maxRelativeDifference(predictSvr(model, q), g.svr.pred)).toBeLessThan(1e-9);
    });
  }

  it("gives the same model with a kernel cache of two rows (rows recomputed on demand)", () => {
    const g = treeSvrGoldens.smooth;
    const { x, q } = caseMatrices(g);
    const cached = fitSvr(x, g.y, { cacheBytes: 2 * 4 * g.rows });
    expect(maxRelativeDifference(predictSvr(cached, q), g.svr.pred)).toBeLessThan(1e-9);
  });

  it("fits a constant target with no support vectors and intercept = the constant (as libsvm)", () => {
    const g = treeSvrGoldens.constant;
    const { x, q } = caseMatrices(g);
    const model = fitSvr(x, g.y);
    expect(model.dualCoef.length).toBe(0);
    expect(model.intercept).toBe(5);
    expect(Array.from(predictSvr(model, q))).toEqual(g.svr.pred);
  });

  it("uses gamma = 1 when every feature value is the same (sklearn's zero-variance rule)", () => {
    const model = fitSvr({ rows: 3, cols: 2, values: new Float64Array(6).fill(0.5) }, [1, 2, 3]);
    expect(model.gamma).toBe(1);
    // one point repeated: the best constant within the epsilon tube of the median
    expect(predictSvr(model, { rows: 1, cols: 2, values: Float64Array.of(0.5, 0.5) })[0]).toBeCloseTo(2, 9);
  });

  it("predicts by hand: sum of coef * exp(-gamma |sv - x|^2) + intercept", () => {
    const model = {
      supportVectors: { rows: 2, cols: 1, values: Float64Array.of(0, 1) },
      dualCoef: Float64Array.of(2, -1),
      intercept: 0.5,
      gamma: 0.5,
    };
    const p = predictSvr(model, { rows: 1, cols: 1, values: Float64Array.of(2) });
    expect(p[0]).toBeCloseTo(2 * Math.exp(-2) - Math.exp(-0.5) + 0.5, 15);
  });

  it("refuses fewer than 2 rows, NaN and a non-positive C", () => {
    expect(() => fitSvr({ rows: 1, cols: 1, values: Float64Array.of(1) }, [1])).toThrow(new WasmKernelError("fitSvr", -5));
    expect(() => fitSvr({ rows: 2, cols: 1, values: Float64Array.of(1, Number.NaN) }, [1, 2])).toThrow(
      new WasmKernelError("fitSvr", -2),
    );
    expect(() => fitSvr({ rows: 2, cols: 1, values: Float64Array.of(1, 2) }, [1, 2], { c: 0 })).toThrow(
      new WasmKernelError("fitSvr", -1),
    );
  });
});
