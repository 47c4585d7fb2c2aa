import { describe, expect, it } from "vitest";
import { packTreeEnsemble, predictTreeEnsemble, type RegressionTree, WasmKernelError } from "../src/index.js";

// x0 <= 0.5 ? (x1 <= 2 ? 10 : 20) : 30
const tree: RegressionTree = {
  feature: Int32Array.of(0, 1, -2, -2, -2),
  threshold: Float64Array.of(0.5, 2, -2, -2, -2),
  left: Int32Array.of(1, 3, -1, -1, -1),
  right: Int32Array.of(2, 4, -1, -1, -1),
  value: Float64Array.of(0, 0, 30, 10, 20),
};
const stump: RegressionTree = {
  feature: Int32Array.of(1, -2, -2),
  threshold: Float64Array.of(5, -2, -2),
  left: Int32Array.of(1, -1, -1),
  right: Int32Array.of(2, -1, -1),
  value: Float64Array.of(0, -1, 1),
};
// rows (x0, x1): (0, 0), (0, 3), (1, 9), (0.5, 2)
const x = { rows: 4, cols: 2, values: Float64Array.of(0, 0, 1, 0.5, 0, 3, 9, 2) };

describe("predictTreeEnsemble", () => {
  it("walks each tree (x <= threshold goes left) and sums base + scale * leaf", () => {
    expect(Array.from(predictTreeEnsemble({ base: 0, scale: 1, trees: [tree] }, x))).toEqual([10, 20, 30, 10]);
    // base 100, scale 0.5: 100 + 0.5 * (tree + stump)
    expect(Array.from(predictTreeEnsemble({ base: 100, scale: 0.5, trees: [tree, stump] }, x))).toEqual([
      104.5, 109.5, 115.5, 104.5,
    ]);
  });

  it("compares float32 features, as sklearn: float32(0.1) > 0.1 goes right", () => {
    const t: RegressionTree = { ...stump, feature: Int32Array.of(0, -2, -2), threshold: Float64Array.of(0.1, -2, -2) };
    const rows = { rows: 2, cols: 1, values: Float64Array.of(0.1, 0.09999999) };
    expect(Array.from(predictTreeEnsemble({ base: 0, scale: 1, trees: [t] }, rows))).toEqual([1, -1]);
  });

  it("predicts the base for an empty ensemble and nothing for no rows", () => {
    expect(Array.from(predictTreeEnsemble({ base: 7, scale: 1, trees: [] }, x))).toEqual([7, 7, 7, 7]);
    expect(
      predictTreeEnsemble({ base: 7, scale: 1, trees: [tree] }, { rows: 0, cols: 2, values: new Float64Array(0) }),
    ).toHaveLength(0);
  });

  it("reuses a packed ensemble for many predictions", () => {
    const packed = packTreeEnsemble({ base: 1, scale: 1, trees: [tree, stump] });
    try {
      expect(Array.from(predictTreeEnsemble(packed, x))).toEqual([10, 20, 32, 10]);
      expect(Array.from(predictTreeEnsemble(packed, { rows: 1, cols: 2, values: Float64Array.of(0.7, 6) }))).toEqual([32]);
    } finally {
      packed.free();
    }
  });

  it("refuses malformed trees before predicting", () => {
    const dimension = new WasmKernelError("predictTreeEnsemble", -1);
    const backwards = { ...tree, left: Int32Array.of(1, 0, -1, -1, -1) };
    expect(() => predictTreeEnsemble({ base: 0, scale: 1, trees: [backwards] }, x)).toThrow(dimension);
    const outside = { ...tree, right: Int32Array.of(2, 5, -1, -1, -1) };
    expect(() => predictTreeEnsemble({ base: 0, scale: 1, trees: [outside] }, x)).toThrow(dimension);
    const featureTooLarge = { ...stump, feature: Int32Array.of(2, -2, -2) };
    expect(() => predictTreeEnsemble({ base: 0, scale: 1, trees: [featureTooLarge] }, x)).toThrow(dimension);
  });

  it("refuses NaN features", () => {
    const rows = { rows: 1, cols: 2, values: Float64Array.of(Number.NaN, 1) };
    expect(() => predictTreeEnsemble({ base: 0, scale: 1, trees: [tree] }, rows)).toThrow(
      new WasmKernelError("predictTreeEnsemble", -2),
    );
  });
});
