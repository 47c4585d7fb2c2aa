// Split-conformal kernels: expected values worked out by hand from the definitions in assembly/intervals.ts.
import { describe, expect, it } from "vitest";
import { conformalHalfWidth, countCovered, predictionBounds, sortedAbsoluteResiduals } from "../src/index.js";

describe("split-conformal intervals", () => {
  it("sorts absolute residuals ascending and refuses NaN", () => {
    expect(Array.from(sortedAbsoluteResiduals([3, 1, 10, 4], [1, 1.5, 4, 4]))).toEqual([0, 0.5, 2, 6]);
    expect(() => sortedAbsoluteResiduals([1, Number.NaN], [1, 1])).toThrow("sortedAbsResiduals: input contains NaN or infinity");
  });

  it("sorts a long list (heapsort) like Array.prototype.sort", () => {
    const y = Array.from({ length: 2001 }, (_, i) => Math.sin(i * 12.9898) * 43758.5453);
    const expected = y.map((v) => Math.abs(v)).sort((a, b) => a - b);
    expect(Array.from(sortedAbsoluteResiduals(y, new Array<number>(y.length).fill(0)))).toEqual(expected);
  });

  it("takes the order statistic at level * (n + 1), interpolated", () => {
    // n = 19, level 0.9: position 18 exactly, the 18th smallest.
    expect(
      conformalHalfWidth(
        Array.from({ length: 19 }, (_, i) => i + 1),
        0.9,
      ),
    ).toBe(18);
    // n = 10: position 9.9 = 9th (2) + 0.9 * (10th (5) - 9th).
    expect(conformalHalfWidth([0, 0, 0, 0, 0, 0, 0, 0.5, 2, 5], 0.9)).toBeCloseTo(4.7, 12);
    // Position past n: the largest residual; position below 1: a fraction of the smallest.
    expect(conformalHalfWidth([5], 0.9)).toBe(5);
    expect(conformalHalfWidth([1, 2, 3], 0.2)).toBeCloseTo(0.8, 12);
    expect(() => conformalHalfWidth([1], 1)).toThrow("level must be strictly between 0 and 1, got 1");
    expect(() => conformalHalfWidth([], 0.9)).toThrow("no calibration residuals");
  });

  it("clamps lower bounds at 0 and counts covered rows", () => {
    const bounds = predictionBounds([1, 10, 0], 2);
    expect(Array.from(bounds.lowerWatts)).toEqual([0, 8, 0]);
    expect(Array.from(bounds.upperWatts)).toEqual([3, 12, 2]);
    expect(countCovered([0, 12.5, 2], bounds.lowerWatts, bounds.upperWatts)).toBe(2);
  });
});
