import { describe, expect, it } from "vitest";
import {
  F64Buffer,
  fitLinear,
  linearModelSet,
  matrixToWasm,
  predictLinear,
  predictLinearMany,
  predictPolynomialLinear,
  predictPolynomialLinearMany,
} from "../src/index.js";
import { goldens, matrixOf, maxRelativeDifference } from "./trainer-goldens.js";

// x0 = [0, 1, 2, 3], x1 = [1, 0, 1, 0] (column-major), y = 3 + 2 x0 - x1 = [2, 5, 6, 9]
const x = matrixOf(4, 2, [0, 1, 2, 3, 1, 0, 1, 0]);
const y = [2, 5, 6, 9];

describe("fitLinear (sklearn LinearRegression)", () => {
  it("recovers an exact plane by least squares", () => {
    const model = fitLinear(x, y, { positive: false });
    expect(model.coefficients[0]).toBeCloseTo(2, 12);
    expect(model.coefficients[1]).toBeCloseTo(-1, 12);
    expect(model.intercept).toBeCloseTo(3, 12);
    expect(maxRelativeDifference(predictLinear(model, x), y)).toBeLessThan(1e-12);
  });

  it("clamps the negative coefficient with positive=True (NNLS)", () => {
    // By hand: with x1 out, OLS on x0 gives slope 11/5 = 2.2 and intercept 5.5 - 1.5 * 2.2 = 2.2; its
    // residuals [-0.2, 0.6, -0.6, 0.2] have dot -0.8 < 0 with the centred x1, so the KKT conditions
    // hold and x1's coefficient stays 0.
    const model = fitLinear(x, y, { positive: true });
    expect(model.coefficients[0]).toBeCloseTo(2.2, 12);
    expect(model.coefficients[1]).toBe(0);
    expect(model.intercept).toBeCloseTo(2.2, 12);
  });

  it("matches scikit-learn 1.2.1 on 30 noisy rows (OLS and positive=True), within 1e-9", () => {
    const g = goldens.linear;
    const m = matrixOf(g.rows, g.cols, g.x);
    for (const [positive, golden] of [
      [false, g.ols],
      [true, g.positive],
    ] as const) {
      const model = fitLinear(m, g.y, { positive });
      expect(maxRelativeDifference(model.coefficients, golden.coef)).toBeLessThan(1e-9);
      expect(Math.abs(model.intercept - golden.intercept)).toBeLessThan(1e-9);
      expect(maxRelativeDifference(predictLinear(model, m), golden.pred)).toBeLessThan(1e-9);
    }
    // the unconstrained fit has a negative coefficient, the constrained one sets it to 0
    expect(g.ols.coef[1]).toBeLessThan(0);
    expect(fitLinear(m, g.y, { positive: true }).coefficients[1]).toBe(0);
  });

  it("gives a constant (or all-zero) column the coefficient 0, as the minimum-norm solution does", () => {
    const withConstant = matrixOf(4, 3, [0, 1, 2, 3, 7, 7, 7, 7, 0, 0, 0, 0]);
    for (const positive of [false, true]) {
      const model = fitLinear(withConstant, [1, 3, 5, 7], { positive });
      expect(Array.from(model.coefficients).map((c) => Number(c.toFixed(12)))).toEqual([2, 0, 0]);
      expect(model.intercept).toBeCloseTo(1, 12);
    }
  });

  it("splits weight equally between duplicated columns (minimum-norm, like lstsq)", () => {
    const duplicated = matrixOf(4, 2, [0, 1, 2, 3, 0, 1, 2, 3]);
    const model = fitLinear(duplicated, [1, 5, 9, 13], { positive: false });
    expect(model.coefficients[0]).toBeCloseTo(2, 9);
    expect(model.coefficients[1]).toBeCloseTo(2, 9);
    expect(model.intercept).toBeCloseTo(1, 9);
  });

  it("fits a single row as its mean, and a constant target exactly", () => {
    const one = fitLinear(matrixOf(1, 2, [4, 5]), [10], { positive: false });
    expect(Array.from(one.coefficients)).toEqual([0, 0]);
    expect(one.intercept).toBe(10);
    const flat = fitLinear(x, [5, 5, 5, 5], { positive: true });
    expect(Array.from(flat.coefficients)).toEqual([0, 0]);
    expect(flat.intercept).toBe(5);
  });

  it("works on a matrix and targets already resident in wasm memory", () => {
    const resident = matrixToWasm(x);
    const target = F64Buffer.from(y);
    const model = fitLinear(resident, target, { positive: false });
    expect(model.coefficients[0]).toBeCloseTo(2, 12);
    expect(maxRelativeDifference(predictLinear(model, resident), y)).toBeLessThan(1e-12);
    resident.buffer.free();
    target.free();
  });

  it("refuses NaN, no rows and mismatched shapes", () => {
    expect(() => fitLinear(matrixOf(2, 1, [1, Number.NaN]), [1, 2], { positive: false })).toThrow(
      "fitLinear: input contains NaN or infinity",
    );
    expect(() => fitLinear(matrixOf(0, 2, []), [], { positive: false })).toThrow("fitLinear: too few rows");
    expect(() => fitLinear(x, [1, 2], { positive: false })).toThrow("fitLinear: 4 rows but 2 targets");
    const model = fitLinear(x, y, { positive: false });
    expect(() => predictLinear(model, matrixOf(1, 3, [1, 2, 3]))).toThrow(
      "predictLinear: model has 2 coefficients, x gives 3 columns",
    );
  });
});

describe("predictLinearMany (an estimate's components in one pass)", () => {
  // Four components, some predicting negative watts (clamped to 0), on 5 rows of 2 features.
  const models = [
    { coefficients: Float64Array.of(2, -1), intercept: 3 },
    { coefficients: Float64Array.of(-4, 0.5), intercept: -1 },
    { coefficients: Float64Array.of(0.1, 0.2), intercept: 0.3 },
    { coefficients: Float64Array.of(0, 0), intercept: -2 },
  ];
  const rows = matrixOf(5, 2, [0, 1, 2, 3, 0.25, 1, 0, 7, 0, -3]);

  it("equals predictLinear per model, bit for bit, with and without the clamp", () => {
    for (const clampNonNegative of [false, true]) {
      const together = predictLinearMany(linearModelSet(models), rows, { clampNonNegative });
      expect(together.map((p) => Array.from(p))).toEqual(
        models.map((model) => Array.from(predictLinear(model, rows, { clampNonNegative }))),
      );
    }
    expect(Array.from(predictLinearMany(linearModelSet(models), rows, { clampNonNegative: true })[3]!)).toEqual([0, 0, 0, 0, 0]);
  });

  it("does the same for degree-2 polynomial models", () => {
    const poly = [
      { coefficients: Float64Array.of(0, 1, -2, 0.5, 0.25, -1), intercept: 1 },
      { coefficients: Float64Array.of(1, 0, 0, -1, 0, 0), intercept: 0 },
    ];
    const together = predictPolynomialLinearMany(linearModelSet(poly), rows, { clampNonNegative: true });
    expect(together.map((p) => Array.from(p))).toEqual(
      poly.map((model) => Array.from(predictPolynomialLinear(model, rows, { clampNonNegative: true }))),
    );
  });

  it("refuses models of different widths, and a width that does not fit x", () => {
    expect(() => linearModelSet([models[0]!, { coefficients: Float64Array.of(1), intercept: 0 }])).toThrow(
      "linearModelSet: model 1 has 1 coefficients, model 0 has 2",
    );
    expect(() => predictLinearMany(linearModelSet(models), matrixOf(1, 3, [1, 2, 3]))).toThrow(
      "predictLinear: models have 2 coefficients, x gives 3 columns",
    );
  });
});
