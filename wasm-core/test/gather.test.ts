import { describe, expect, it } from "vitest";
import {
  columnStats,
  complementRows,
  distinctValues,
  indexOfValues,
  multiplyRows,
  rowsWhereEqual,
  takeElements,
  takeRows,
  WasmKernelError,
} from "../src/index.js";

// 3 rows x 2 columns, column-major: column 0 = [1, 2, 3], column 1 = [10, 20, 30].
const x = { rows: 3, cols: 2, values: Float64Array.of(1, 2, 3, 10, 20, 30) };

describe("takeRows", () => {
  it("gathers rows in the given order, as numpy X[rows]", () => {
    const picked = takeRows(x, Uint32Array.of(2, 0, 2));
    expect(picked.rows).toBe(3);
    expect(Array.from(picked.values)).toEqual([3, 1, 3, 30, 10, 30]);
  });

  it("gathers vector elements", () => {
    expect(Array.from(takeElements(Float64Array.of(5, 6, 7), Uint32Array.of(1, 2)))).toEqual([6, 7]);
  });

  it("refuses an out-of-range row", () => {
    expect(() => takeRows(x, Uint32Array.of(3))).toThrow(new WasmKernelError("takeRows", -1));
  });
});

describe("columnStats", () => {
  it("gives min, max, mean and population std per column", () => {
    // column 1: mean 20, squared deviations 100 + 0 + 100 = 200, /3 -> std sqrt(200/3)
    const [a, b] = columnStats(x);
    expect(a).toEqual({ min: 1, max: 3, mean: 2, std: Math.sqrt(2 / 3), nonFiniteCount: 0 });
    expect(b?.std).toBeCloseTo(Math.sqrt(200 / 3), 12);
  });

  it("counts NaN and infinities and leaves them out", () => {
    const [s] = columnStats({ rows: 4, cols: 1, values: Float64Array.of(4, Number.NaN, Number.POSITIVE_INFINITY, 2) });
    expect(s).toEqual({ min: 2, max: 4, mean: 3, std: 1, nonFiniteCount: 2 });
  });
});

describe("row helpers", () => {
  it("multiplies each row by its factor", () => {
    expect(Array.from(multiplyRows(x, Float64Array.of(1, 0.5, 2)).values)).toEqual([1, 1, 6, 10, 10, 60]);
  });

  it("finds rows equal to a value", () => {
    expect(Array.from(rowsWhereEqual(Float64Array.of(0, 1, 0, Number.NaN, 1), 1))).toEqual([1, 4]);
  });

  it("lists distinct finite values ascending", () => {
    expect(Array.from(distinctValues(Float64Array.of(3, 1, Number.NaN, 3, 0, 1)))).toEqual([0, 1, 3]);
  });

  it("finds the first index of each needle, or -1", () => {
    const hay = Float64Array.of(100, 103, 106, 103, 109);
    expect(Array.from(indexOfValues(hay, Float64Array.of(103, 109, 104, 100)))).toEqual([1, 4, -1, 0]);
  });

  it("lists the rows not selected", () => {
    expect(Array.from(complementRows(6, Uint32Array.of(4, 1)))).toEqual([0, 2, 3, 5]);
  });
});
