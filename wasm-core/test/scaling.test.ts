import { describe, expect, it } from "vitest";
import { F64Buffer, WasmKernelError, applyScale, applyScaleInWasm, fitMaxAbsScale } from "../src/index.js";

// Column-major 3 x 3: columns [1, -4, 2], [0, 0, 0], [0.5, 0.25, -0.125]
const x = { rows: 3, cols: 3, values: Float64Array.from([1, -4, 2, 0, 0, 0, 0.5, 0.25, -0.125]) };

describe("fitMaxAbsScale", () => {
  it("takes max |x| per column and 1.0 for an all-zero column, as sklearn's MaxAbsScaler", () => {
    expect(Array.from(fitMaxAbsScale(x))).toEqual([4, 1, 0.5]);
  });

  it("handles an odd row count and a single row", () => {
    const one = { rows: 1, cols: 2, values: Float64Array.from([-3, 0]) };
    expect(Array.from(fitMaxAbsScale(one))).toEqual([3, 1]);
  });

  it("refuses NaN and infinity", () => {
    const bad = { rows: 3, cols: 1, values: Float64Array.from([1, Number.NaN, 2]) };
    expect(() => fitMaxAbsScale(bad)).toThrow(new WasmKernelError("maxAbsScale", -2));
    const inf = { rows: 2, cols: 1, values: Float64Array.from([Number.POSITIVE_INFINITY, 2]) };
    expect(() => fitMaxAbsScale(inf)).toThrow("maxAbsScale: input contains NaN or infinity");
  });

  it("checks the matrix shape", () => {
    expect(() => fitMaxAbsScale({ rows: 2, cols: 2, values: new Float64Array(3) })).toThrow(
      "fitMaxAbsScale x: 2 x 2 needs 4 values, got 3",
    );
  });
});

describe("applyScale", () => {
  it("divides each column by its scale", () => {
    const scaled = applyScale(x, fitMaxAbsScale(x));
    expect(Array.from(scaled.values)).toEqual([0.25, -1, 0.5, 0, 0, 0, 1, 0.5, -0.25]);
  });

  it("divides rather than multiplying by a reciprocal (bit-identical to X / scale_)", () => {
    const m = { rows: 1, cols: 1, values: Float64Array.from([0.1]) };
    expect(applyScale(m, [3]).values[0]).toBe(0.1 / 3);
  });

  it("scales a wasm-resident matrix in place", () => {
    const resident = { rows: 3, cols: 3, buffer: F64Buffer.from(x.values) };
    applyScaleInWasm(resident, [4, 1, 0.5]);
    expect(Array.from(resident.buffer.view())).toEqual([0.25, -1, 0.5, 0, 0, 0, 1, 0.5, -0.25]);
    resident.buffer.free();
  });

  it("refuses a zero scale and a wrong number of scales", () => {
    expect(() => applyScale(x, [1, 0, 1])).toThrow("applyScale: input contains NaN or infinity");
    expect(() => applyScale(x, [1, 1])).toThrow("applyScale: 3 columns but 2 scales");
  });
});
