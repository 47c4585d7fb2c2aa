import { describe, expect, it } from "vitest";
import { WasmKernelError, dynamicPower, scaleByShare, squeezeByTimestamp, subtractGroupOffsets } from "../src/index.js";

// Five container rows over two timestamps (unsorted on purpose), three columns, column-major:
//   t=20: a=1 b=10 r=1   t=10: a=2 b=20 r=1   t=20: a=4 b=10 r=3   t=10: a=NaN b=20 r=1   t=20: a=8 b=10 r=0
const input = {
  rowCount: 5,
  timestamps: Float64Array.of(20, 10, 20, 10, 20),
  values: Float64Array.of(1, 2, 4, Number.NaN, 8, 10, 20, 10, 20, 10, 1, 1, 3, 1, 0),
};

describe("squeezeByTimestamp", () => {
  it("sums features, averages node values and normalises ratios per timestamp, ascending", () => {
    const out = squeezeByTimestamp(input, [
      { source: 2, mode: "ratio" },
      { source: 0, mode: "sum" },
      { source: 1, mode: "mean" },
    ]);
    expect(out.rowCount).toBe(2);
    expect(Array.from(out.timestamps)).toEqual([10, 20]);
    // ratio: sums 2 and 4, each divided by its own row sum -> 1; a: 2 + NaN(as 0) = 2, 1 + 4 + 8 = 13;
    // b: mean of (20, 20) = 20, mean of (10, 10, 10) = 10.
    expect(Array.from(out.values)).toEqual([1, 1, 2, 13, 20, 10]);
  });

  it("divides two ratio columns by their row sum", () => {
    const out = squeezeByTimestamp(input, [
      { source: 2, mode: "ratio" },
      { source: 0, mode: "ratio" },
    ]);
    // t=10: ratio 2, a 2 -> 0.5, 0.5; t=20: ratio 4, a 13 -> 4/17, 13/17.
    expect(Array.from(out.values)).toEqual([0.5, 4 / 17, 0.5, 13 / 17]);
  });

  it("refuses ratio columns that are not consecutive", () => {
    expect(() =>
      squeezeByTimestamp(input, [
        { source: 2, mode: "ratio" },
        { source: 0, mode: "sum" },
        { source: 1, mode: "ratio" },
      ]),
    ).toThrow("squeezeByTimestamp: ratio columns must be consecutive");
  });
});

describe("subtractGroupOffsets", () => {
  const block = { rows: 3, cols: 2, values: Float64Array.of(5, 7, 9, 1, 2, 3) };

  it("subtracts each row's group offsets per column and clamps at 0", () => {
    // group 0 offsets (5, 1), group 1 offsets (8, 0.5); rows in groups 0, 1, 1.
    const out = subtractGroupOffsets(block, Float64Array.of(0, 1, 1), Float64Array.of(5, 1, 8, 0.5), { clampAtZero: true });
    expect(Array.from(out.values)).toEqual([0, 0, 1, 0, 1.5, 2.5]);
    expect(out.clampedCount).toBe(1);
  });

  it("keeps negative values without the clamp", () => {
    const out = subtractGroupOffsets(block, Float64Array.of(0, 1, 1), Float64Array.of(5, 1, 8, 0.5), { clampAtZero: false });
    expect(Array.from(out.values)).toEqual([0, -1, 1, 0, 1.5, 2.5]);
    expect(out.clampedCount).toBe(0);
  });

  it("refuses a group index without offsets", () => {
    expect(() =>
      subtractGroupOffsets(block, Float64Array.of(0, 2, 1), Float64Array.of(5, 1, 8, 0.5), { clampAtZero: true }),
    ).toThrow(new WasmKernelError("subtractGroupOffsets", -1));
  });
});

describe("dynamic power", () => {
  it("is node minus background, at least 0, with a NaN background counting as 0", () => {
    const out = dynamicPower(Float64Array.of(100, 50, 80, Number.NaN), Float64Array.of(60, 70, Number.NaN, 1));
    expect(Array.from(out.values)).toEqual([40, 0, 80, 0]);
    expect(out.clampedCount).toBe(1);
  });

  it("scales a label by its share of node power, 0 where the node draws nothing", () => {
    const out = scaleByShare(Float64Array.of(30, 0, 10), Float64Array.of(100, 0, 40), Float64Array.of(40, 5, 20));
    expect(Array.from(out)).toEqual([12, 0, 5]);
  });
});
