import { describe, expect, it } from "vitest";
import { type CurveKind, fitCurve, predictCurve } from "../src/index.js";
import { goldens, maxRelativeDifference } from "./trainer-goldens.js";

const xs = Float64Array.from({ length: 30 }, (_, i) => i / 29);

// The reference's starting points (kepler-model-server curvefit.py): floor divisions as numpy's //.
function referenceStart(kind: CurveKind, y: ArrayLike<number>): number[] {
  const values = Array.from(y);
  const hi = Math.max(...values);
  const lo = Math.min(...values);
  if (kind === "logarithmic") return [hi - lo, 1, lo];
  if (kind === "exponential") {
    const a = Math.floor((hi - lo) / Math.E);
    return [a, 1, lo - a];
  }
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const std = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length);
  return [hi - lo, 0.5, Math.floor((hi - lo) / std), lo];
}

describe("predictCurve", () => {
  it("evaluates the three reference formulas", () => {
    // 2 ln(1 (e - 1) + 1) + 3 = 5; 2 exp(ln 2) + 1 = 5; 10 / (1 + exp(0)) + 5 = 10
    expect(predictCurve("logarithmic", [2, 1, 3], [Math.E - 1])[0]).toBeCloseTo(5, 14);
    expect(predictCurve("exponential", [2, Math.LN2, 1], [1])[0]).toBeCloseTo(5, 14);
    expect(predictCurve("logistic", [10, 0, 1, 5], [0])[0]).toBe(10);
  });
});

describe("fitCurve (Levenberg-Marquardt as scipy curve_fit)", () => {
  const truths: Record<CurveKind, number[]> = {
    logarithmic: [50, 5, 100],
    exponential: [20, 1.2, 80],
    logistic: [120, 0.45, 10, 70],
  };
  for (const kind of ["logarithmic", "exponential", "logistic"] as const) {
    it(`recovers ${kind} parameters from noiseless data`, () => {
      const y = predictCurve(kind, truths[kind], xs);
      const fit = fitCurve(kind, xs, y, referenceStart(kind, y));
      expect(fit.converged).toBe(true);
      expect(maxRelativeDifference(fit.parameters, truths[kind])).toBeLessThan(1e-6);
    });

    it(`matches scipy 1.10.1 curve_fit on noisy ${kind} data`, () => {
      const g = goldens.curves.fits[kind];
      const fit = fitCurve(kind, goldens.curves.x, g.y, g.p0);
      expect(fit.converged).toBe(true);
      expect(fit.evaluations).toBe(g.nfev);
      expect(maxRelativeDifference(fit.parameters, g.popt)).toBeLessThan(1e-6);
      expect(maxRelativeDifference(predictCurve(kind, fit.parameters, goldens.curves.x), g.pred)).toBeLessThan(1e-8);
    });
  }

  it("reports a fit stopped by the evaluation budget as not converged, with scipy's reason", () => {
    const g = goldens.curves.fits.logarithmic;
    const fit = fitCurve("logarithmic", goldens.curves.x, g.y, g.p0, { maxEvaluations: 10 });
    expect(fit.converged).toBe(false);
    expect(fit.reason).toBe("number of calls to function has reached maxfev");
    expect(fit.evaluations).toBeGreaterThanOrEqual(10);
  });

  it("refuses a NaN start (the reference's logistic start on an all-zero component) and NaN data", () => {
    expect(() => fitCurve("logistic", [0, 0.5, 1, 0.2], [0, 0, 0, 0], [0, 0.5, Number.NaN, 0])).toThrow(
      "fitCurve: input contains NaN or infinity",
    );
    expect(() => fitCurve("exponential", [0, Number.NaN, 1], [1, 2, 3], [1, 1, 0])).toThrow(
      "fitCurve: input contains NaN or infinity",
    );
  });

  it("refuses fewer points than parameters and wrong parameter counts", () => {
    expect(() => fitCurve("logistic", [0, 1, 2], [1, 2, 3], [1, 1, 1, 1])).toThrow("fitCurve: too few rows");
    expect(() => fitCurve("logarithmic", [0, 1, 2], [1, 2, 3], [1, 1])).toThrow(
      "fitCurve: logarithmic needs 3 initial parameters, got 2",
    );
  });
});
