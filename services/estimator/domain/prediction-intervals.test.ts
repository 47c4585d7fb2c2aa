// Prediction intervals from calibration residuals: half widths per level (kept per level), the level the
// intervals can have with few residuals, and the level check.
import { describe, expect, it } from "vitest";
import { assertIntervalLevel, IntervalCalibration } from "./prediction-intervals.js";

describe("IntervalCalibration", () => {
  const calibration = new IntervalCalibration(
    new Map([
      ["package", Float64Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])],
      ["dram", Float64Array.from([0.5])],
    ]),
  );

  it("gives each component the order statistic at level * (n + 1)", () => {
    const widths = calibration.halfWidthsAt(0.9);
    expect(widths.get("package")).toBe(18); // position 0.9 * 20 = 18
    expect(widths.get("dram")).toBe(0.5); // one residual: the largest, whatever the level
    expect(calibration.halfWidthsAt(0.5).get("package")).toBe(10);
  });

  it("says which level one residual can have: n / (n + 1)", () => {
    expect(calibration.achievableLevel(0.9)).toBe(0.5);
    expect(new IntervalCalibration(new Map([["package", new Float64Array(19)]])).achievableLevel(0.9)).toBe(0.9);
    expect(new IntervalCalibration(new Map([["package", new Float64Array(19)]])).achievableLevel(0.96)).toBe(0.95);
  });

  it("refuses a level outside (0, 1), naming the field", () => {
    expect(() => assertIntervalLevel(1)).toThrow("interval_level: must be strictly between 0 and 1 (e.g. 0.9 for 90 %), got 1");
    expect(() => assertIntervalLevel(0)).toThrow("got 0");
    expect(assertIntervalLevel(0.9)).toBe(0.9);
  });
});
