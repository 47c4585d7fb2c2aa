import { describe, expect, it } from "vitest";
import {
  fitLinear,
  fitPolynomialLinear,
  polynomialFeatures,
  polynomialWidth,
  predictLinear,
  predictPolynomialLinear,
} from "../src/index.js";
import { goldens, matrixOf, maxRelativeDifference } from "./trainer-goldens.js";

describe("polynomialFeatures (sklearn PolynomialFeatures(degree=2))", () => {
  it("orders columns 1, x0, x1, x0^2, x0 x1, x1^2", () => {
    const out = polynomialFeatures(matrixOf(1, 2, [2, 3]), 2);
    expect(out.cols).toBe(6);
    expect(Array.from(out.values)).toEqual([1, 2, 3, 4, 6, 9]);
  });

  it("orders three features lexicographically and keeps the column-major layout", () => {
    // rows [1, 2, 3] and [2, 0, -1]
    const out = polynomialFeatures(matrixOf(2, 3, [1, 2, 2, 0, 3, -1]), 2);
    expect(out.cols).toBe(polynomialWidth(3));
    const row = (r: number) => Array.from({ length: out.cols }, (_, c) => out.values[c * 2 + r]);
    expect(row(0)).toEqual([1, 1, 2, 3, 1, 2, 3, 4, 6, 9]);
    // x1 x2 = 0 * -1 is -0 in IEEE arithmetic, as in numpy
    expect(row(1)).toEqual([1, 2, 0, -1, 4, 0, -2, 0, -0, 1]);
    expect(polynomialWidth(9)).toBe(55);
  });

  it("refuses other degrees", () => {
    expect(() => polynomialFeatures(matrixOf(1, 1, [1]), 3 as 2)).toThrow(
      "polynomialFeatures: only degree 2 is supported, got 3",
    );
  });
});

describe("polynomial regression", () => {
  const g = goldens.linear;
  const x = matrixOf(g.rows, g.cols, g.x);

  it("matches sklearn PolynomialFeatures(2) + LinearRegression() within 1e-9 (bias coefficient 0)", () => {
    const model = fitLinear(polynomialFeatures(x, 2), g.y, { positive: false });
    expect(model.coefficients[0]).toBe(0);
    expect(maxRelativeDifference(predictLinear(model, polynomialFeatures(x, 2)), g.polynomial.pred)).toBeLessThan(1e-9);
    expect(Math.abs(model.intercept - g.polynomial.intercept)).toBeLessThan(1e-8);
  });

  it("gives the same model from the fused kernel, without the expanded matrix", () => {
    const expanded = fitLinear(polynomialFeatures(x, 2), g.y, { positive: false });
    const fused = fitPolynomialLinear(x, g.y);
    expect(maxRelativeDifference(fused.coefficients, expanded.coefficients)).toBeLessThan(1e-12);
    expect(maxRelativeDifference(predictPolynomialLinear(fused, x), g.polynomial.pred)).toBeLessThan(1e-9);
  });
});
