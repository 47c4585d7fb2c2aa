import { describe, expect, it } from "vitest";
import { constantCurve, curveStartingPoint, pythonFloorDiv } from "./curve-fit-start.js";

describe("pythonFloorDiv", () => {
  it("matches Python's float // (values printed by CPython 3.11 and numpy)", () => {
    // 1 // 0.1 is 9.0 in Python although 1 / 0.1 rounds to 10.0: 0.1 is slightly above one tenth.
    const cases: Array<[number, number, number]> = [
      [5.5, 2, 2],
      [-5.5, 2, -3],
      [0.3, 0.1, 2],
      [1, 0.1, 9],
      [-1, 0.1, -10],
      [7, -2, -4],
      [100, Math.E, 36],
    ];
    expect(cases.map(([a, b]) => pythonFloorDiv(a, b))).toEqual(cases.map(([, , q]) => q));
  });

  it("gives numpy's NaN for 0 // 0 and inf for 1 // 0", () => {
    expect(pythonFloorDiv(0, 0)).toBeNaN();
    expect(pythonFloorDiv(1, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("curveStartingPoint", () => {
  const stats = { min: 100, max: 200, std: 30 };
  it("uses the reference's p0 rules, with floor division for exp and logistic", () => {
    expect(curveStartingPoint("logarithmic", stats)).toEqual([100, 1, 100]);
    // a = 100 // e = 36, c = min - a
    expect(curveStartingPoint("exponential", stats)).toEqual([36, 1, 64]);
    // k = A // std = 100 // 30 = 3
    expect(curveStartingPoint("logistic", stats)).toEqual([100, 0.5, 3, 100]);
  });

  it("reduces a constant label to its offset (the reference's log/exp p0; logistic with k = 0)", () => {
    expect(constantCurve("logarithmic", 0)).toEqual([0, 1, 0]);
    expect(constantCurve("exponential", 5)).toEqual([0, 1, 5]);
    expect(constantCurve("logistic", 5)).toEqual([0, 0.5, 0, 5]);
  });
});
