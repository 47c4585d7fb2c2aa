import { describe, expect, it } from "vitest";
import {
  F64Buffer,
  clampNonNegative,
  divideOrZero,
  firstNonFinite,
  gatherFeatureColumns,
  predictKeplerLinear,
} from "../src/index.js";

describe("estimate kernels", () => {
  it("gathers named columns of row-major rows into a column-major matrix (missing -> zeros)", () => {
    const rows = F64Buffer.from([1, 2, 3, 4, 5, 6]); // 2 rows x 3 features
    const x = gatherFeatureColumns(rows, 2, 3, [2, 0, -1]);
    expect([x.rows, x.cols, ...x.buffer.toArray()]).toEqual([2, 3, 3, 6, 1, 4, 0, 0]);
    x.buffer.free();
    expect(() => gatherFeatureColumns(rows, 2, 3, [3])).toThrow("gatherFeatureColumns: dimension mismatch");
    rows.free();
  });

  it("finds the first non-finite value", () => {
    const values = F64Buffer.from([0, 1, Number.POSITIVE_INFINITY, Number.NaN]);
    expect(firstNonFinite(values)).toBe(2);
    values.free();
    const finite = F64Buffer.from([0, -1e308]);
    expect(firstNonFinite(finite)).toBe(-1);
    finite.free();
  });

  it("applies Kepler's linear formula: bias + sum weight * x / scale, scale 0 -> term 0", () => {
    const x = { rows: 2, cols: 3, values: Float64Array.from([10, 20, 3, 6, 7, 8]) };
    const out = predictKeplerLinear(x, { scale: [5, 3, 0], weight: [2, 0.5, 100], bias: 1 });
    expect(Array.from(out)).toEqual([1 + 2 * (10 / 5) + 0.5 * (3 / 3), 1 + 2 * (20 / 5) + 0.5 * (6 / 3)]);
  });

  it("divides by a scale, or gives zeros for scale 0", () => {
    expect(Array.from(divideOrZero([3, 6], 3))).toEqual([1, 2]);
    expect(Array.from(divideOrZero([3, 6], 0))).toEqual([0, 0]);
  });

  it("clamps negatives and NaN to 0", () => {
    expect(Array.from(clampNonNegative([-1, 0, 2.5, Number.NaN, -0]))).toEqual([0, 0, 2.5, 0, -0]);
  });
});
