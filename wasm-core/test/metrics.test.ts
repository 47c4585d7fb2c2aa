import { describe, expect, it } from "vitest";
import { maxAbsoluteError, meanAbsoluteError, meanAbsolutePercentageError, residuals } from "../src/index.js";

describe("meanAbsoluteError", () => {
  it("is the mean absolute difference", () => {
    // |10-12| + |20-18| + |30-33| = 7, over 3 rows
    expect(meanAbsoluteError([10, 20, 30], [12, 18, 33])).toBeCloseTo(7 / 3, 15);
  });

  it("refuses empty input, NaN and different lengths", () => {
    expect(() => meanAbsoluteError([], [])).toThrow("meanAbsoluteError: dimension mismatch");
    expect(() => meanAbsoluteError([1, Number.NaN], [1, 2])).toThrow("meanAbsoluteError: input contains NaN or infinity");
    expect(() => meanAbsoluteError([1, 2], [1])).toThrow("meanAbsoluteError: 2 targets but 1 predictions");
  });
});

describe("meanAbsolutePercentageError (the reference's formula)", () => {
  it("averages |y - p| / y over rows with y > 0, in percent", () => {
    // rows: y=10 p=12 -> 0.2; y=0 skipped; y=-5 skipped; y=50 p=45 -> 0.1 => mean 0.15 -> 15 %
    expect(meanAbsolutePercentageError([10, 0, -5, 50], [12, 3, -4, 45])).toBeCloseTo(15, 12);
  });

  it("is -1 when no row has a positive target (core/uncore power of an idle node)", () => {
    expect(meanAbsolutePercentageError([0, 0, 0], [0.5, 0, 1])).toBe(-1);
    expect(meanAbsolutePercentageError([], [])).toBe(-1);
  });
});

describe("maxAbsoluteError", () => {
  it("is the largest absolute difference of any row", () => {
    // |10-12| = 2, |20-18| = 2, |30-33.5| = 3.5
    expect(maxAbsoluteError([10, 20, 30], [12, 18, 33.5])).toBe(3.5);
    expect(maxAbsoluteError([5], [5])).toBe(0);
  });

  it("refuses empty input and NaN", () => {
    expect(() => maxAbsoluteError([], [])).toThrow("maxAbsoluteError: dimension mismatch");
    expect(() => maxAbsoluteError([1, 2], [1, Number.POSITIVE_INFINITY])).toThrow(
      "maxAbsoluteError: input contains NaN or infinity",
    );
  });
});

describe("residuals", () => {
  it("is predicted - measured per row", () => {
    expect(Array.from(residuals([10, 20, 30], [12, 15, 30]))).toEqual([2, -5, 0]);
    expect(() => residuals([1], [1, 2])).toThrow(RangeError);
  });
});
