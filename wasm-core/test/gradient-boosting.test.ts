import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fitGradientBoosting, predictTreeEnsemble, WasmKernelError } from "../src/index.js";
import { maxRelativeDifference } from "./trainer-goldens.js";
import { caseMatrices, treeSvrGoldens } from "./tree-svr-goldens.js";

// fixtures/make-gbr-tie-goldens.py: sklearn 1.2.1 trees on rows where features tie, per random_state
const tieGoldens = JSON.parse(readFileSync(new URL("./fixtures/gbr-tie-goldens.json", import.meta.url), "utf8")) as {
  rows: number;
  cols: number;
  x: number[];
  y: number[];
  fits: Array<{ random_state: number; feature: number[]; threshold: number[]; value: number[] }>;
};

const line = { rows: 4, cols: 1, values: Float64Array.of(1, 2, 3, 4) };
const steps = [1, 1, 5, 5];

function predict(model: ReturnType<typeof fitGradientBoosting>, x: Parameters<typeof predictTreeEnsemble>[1]): Float64Array {
  return predictTreeEnsemble({ base: model.init, scale: model.learningRate, trees: model.trees }, x);
}

describe("fitGradientBoosting (sklearn GradientBoostingRegressor, friedman_mse, exact splits)", () => {
  it("fits a stump by hand: init = mean, split at the midpoint, leaves = residual means", () => {
    // init 3, residuals (-2, -2, 2, 2): split between 2 and 3 at 2.5, leaves -2 and 2
    const model = fitGradientBoosting(line, steps, { nEstimators: 1, maxDepth: 1, learningRate: 0.1 });
    expect(model.init).toBe(3);
    expect(model.trees).toHaveLength(1);
    const t = model.trees[0]!;
    expect(Array.from(t.feature)).toEqual([0, -2, -2]);
    expect(Array.from(t.threshold)).toEqual([2.5, -2, -2]);
    expect(Array.from(t.left)).toEqual([1, -1, -1]);
    expect(Array.from(t.right)).toEqual([2, -1, -1]);
    expect(Array.from(t.value)).toEqual([0, -2, 2]);
    expect(Array.from(predict(model, line))).toEqual([2.8, 2.8, 3.2, 3.2]);
  });

  it("fits each stage to the previous stages' residuals", () => {
    // stage 2 residuals are (-1.8, -1.8, 1.8, 1.8): 3 - 0.2 - 0.18 = 2.62
    const model = fitGradientBoosting(line, steps, { nEstimators: 2, maxDepth: 1, learningRate: 0.1 });
    expect(model.trees[1]!.value[1]).toBeCloseTo(-1.8, 14);
    const p = predict(model, line);
    expect(p[0]).toBeCloseTo(2.62, 14);
    expect(p[3]).toBeCloseTo(3.38, 14);
  });

  it("does not split between values closer than sklearn's FEATURE_THRESHOLD (1e-7)", () => {
    // the best cut would isolate row 0, but rows 0 and 1 differ by 5e-8 (distinct in float32)
    const x = { rows: 4, cols: 1, values: Float64Array.of(0.01, 0.01 + 5e-8, 0.02, 0.02 + 5e-8) };
    const model = fitGradientBoosting(x, [0, 100, 100, 100], { nEstimators: 1, maxDepth: 1 });
    expect(model.trees[0]!.threshold[0]).toBe(Math.fround(0.01 + 5e-8) / 2 + Math.fround(0.02) / 2);
    expect(Array.from(model.trees[0]!.value)).toEqual([0, -25, 25]);
  });

  for (const name of ["smooth", "duplicates"] as const) {
    it(`matches scikit-learn 1.2.1 (random_state=0) on the ${name} rows`, () => {
      const g = treeSvrGoldens[name];
      const { x, q } = caseMatrices(g);
      const model = fitGradientBoosting(x, g.y, { randomState: 0 });
      expect(model.trees).toHaveLength(100);
      expect(Math.abs(model.init - g.gbr.init)).toBeLessThan(1e-12);
      expect(model.trees[0]!.feature.length).toBe(g.gbr.first_tree_nodes);
      expect(maxRelativeDifference(predict(model, x), g.gbr.train_pred)).toBeLessThan(1e-12);
      // unseen rows too: ties between features go where sklearn's seeded feature order sends them
      expect(maxRelativeDifference(predict(model, q), g.gbr.pred)).toBeLessThan(1e-12);
      // another seed visits the features in another order: the same training fit, other thresholds
      const other = fitGradientBoosting(x, g.y, { randomState: 1 });
      expect(maxRelativeDifference(predict(other, x), g.gbr.train_pred)).toBeLessThan(1e-12);
      expect(maxRelativeDifference(predict(other, q), g.gbr.pred)).toBeGreaterThan(1e-6);
    });
  }

  it("breaks ties between features as sklearn's splitter does for each random_state", () => {
    const x = { rows: tieGoldens.rows, cols: tieGoldens.cols, values: Float64Array.from(tieGoldens.x) };
    for (const fit of tieGoldens.fits) {
      const model = fitGradientBoosting(x, tieGoldens.y, { nEstimators: 1, maxDepth: 3, randomState: fit.random_state });
      const tree = model.trees[0]!;
      // nodes in sklearn's preorder: same features (constant columns skipped), thresholds and leaf means
      expect({ seed: fit.random_state, feature: Array.from(tree.feature) }).toEqual({
        seed: fit.random_state,
        feature: fit.feature,
      });
      expect(Array.from(tree.threshold)).toEqual(fit.threshold);
      expect(maxRelativeDifference(tree.value, fit.value)).toBeLessThan(1e-12);
    }
    expect(new Set(tieGoldens.fits.map((f) => f.feature[0])).size).toBeGreaterThan(1);
  });

  it("predicts a constant target exactly, with single-leaf trees (sklearn: impurity <= DBL_EPSILON)", () => {
    const g = treeSvrGoldens.constant;
    const { x, q } = caseMatrices(g);
    const model = fitGradientBoosting(x, g.y);
    expect(model.trees.every((t) => t.feature.length === 1)).toBe(true);
    expect(Array.from(predict(model, q))).toEqual(g.gbr.pred);
  });

  it("refuses fewer than 2 rows, NaN and bad depths", () => {
    expect(() => fitGradientBoosting({ rows: 1, cols: 1, values: Float64Array.of(1) }, [1])).toThrow(
      new WasmKernelError("fitGradientBoosting", -5),
    );
    expect(() => fitGradientBoosting({ rows: 2, cols: 1, values: Float64Array.of(1, Number.NaN) }, [1, 2])).toThrow(
      new WasmKernelError("fitGradientBoosting", -2),
    );
    expect(() => fitGradientBoosting(line, [1, 2, Number.POSITIVE_INFINITY, 3])).toThrow(
      new WasmKernelError("fitGradientBoosting", -2),
    );
    expect(() => fitGradientBoosting(line, steps, { maxDepth: 15 })).toThrow(
      new RangeError("fitGradientBoosting: maxDepth must be an integer in 1..14, got 15"),
    );
    expect(() => fitGradientBoosting(line, steps, { randomState: -1 })).toThrow(
      new RangeError("fitGradientBoosting: randomState must be an integer in [0, 2^32), got -1"),
    );
  });
});
