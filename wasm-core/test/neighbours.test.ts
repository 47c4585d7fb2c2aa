import { describe, expect, it } from "vitest";
import { predictKnn } from "../src/index.js";
import { goldens, matrixOf, maxRelativeDifference } from "./trainer-goldens.js";

// one feature: x = 0, 1, 2, 3, 10 with targets 0, 10, 20, 30, 100
const x = matrixOf(5, 1, [0, 1, 2, 3, 10]);
const y = [0, 10, 20, 30, 100];

describe("predictKnn (sklearn KNeighborsRegressor, uniform weights)", () => {
  for (const algorithm of ["kd-tree", "brute"] as const) {
    it(`averages the k nearest targets (${algorithm})`, () => {
      // 1.4: nearest 1 (0.4) and 2 (0.6) -> 15; 9: 10 (1) and 3 (6) -> 65
      expect(Array.from(predictKnn({ x, y, k: 2 }, matrixOf(2, 1, [1.4, 9]), { algorithm }))).toEqual([15, 65]);
    });

    it(`breaks distance ties by training-row index (${algorithm})`, () => {
      // 1.5 is 0.5 from rows 1 and 2: k=1 takes row 1; k=3 then ties rows 0 and 3 at 1.5 and takes row 0
      expect(predictKnn({ x, y, k: 1 }, matrixOf(1, 1, [1.5]), { algorithm })[0]).toBe(10);
      expect(predictKnn({ x, y, k: 3 }, matrixOf(1, 1, [1.5]), { algorithm })[0]).toBe(10);
    });
  }

  it("matches scikit-learn 1.2.1 KNeighborsRegressor(6) on 60 rows x 4 features", () => {
    const g = goldens.knn;
    const model = { x: matrixOf(g.rows, g.cols, g.x), y: g.y, k: 6 };
    const queries = matrixOf(g.queryRows, g.cols, g.queries);
    expect(maxRelativeDifference(predictKnn(model, queries), g.pred)).toBeLessThan(1e-12);
    expect(maxRelativeDifference(predictKnn(model, queries, { algorithm: "brute" }), g.pred)).toBeLessThan(1e-12);
  });

  it("finds the same neighbours with the KD-tree and brute force, duplicates and ties included", () => {
    const rows = 3000;
    const cols = 3;
    const values = new Float64Array(rows * cols);
    // a coarse integer grid: many exact duplicates and distance ties
    let state = 7;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    for (let i = 0; i < values.length; i++) values[i] = Math.floor(next() * 6);
    const targets = Float64Array.from({ length: rows }, (_, i) => i);
    const queries = matrixOf(
      200,
      cols,
      Array.from({ length: 200 * cols }, () => Math.floor(next() * 12) / 2),
    );
    const model = { x: { rows, cols, values }, y: targets, k: 6 };
    expect(Array.from(predictKnn(model, queries))).toEqual(Array.from(predictKnn(model, queries, { algorithm: "brute" })));
  });

  it("refuses fewer training rows than k, NaN and mismatched columns", () => {
    expect(() => predictKnn({ x, y, k: 6 }, matrixOf(1, 1, [0]))).toThrow("predictKnn: too few rows");
    expect(() => predictKnn({ x, y, k: 2 }, matrixOf(1, 1, [Number.NaN]))).toThrow("predictKnn: input contains NaN or infinity");
    expect(() => predictKnn({ x, y, k: 2 }, matrixOf(1, 2, [0, 0]))).toThrow(
      "predictKnn: queries have 2 columns, training rows 1",
    );
  });
});
