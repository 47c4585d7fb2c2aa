import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../domain/errors.js";
import { parseComponentModelFile } from "./component-model-file.js";
import { parseTreeModelFile, type TreeArrays } from "./tree-model-files.js";
import { createTreeModelPredictor, predictTreeModelFile } from "./tree-model-predictor.js";

// x0 <= 0.5 ? 10 : (x1 <= 2 ? 20 : 30)
const tree: TreeArrays = {
  feature: [0, -2, 1, -2, -2],
  threshold: [0.5, -2, 2, -2, -2],
  left: [1, -1, 3, -1, -1],
  right: [2, -1, 4, -1, -1],
  value: [0, 10, 0, 20, 30],
};
const gbr = {
  kind: "gradient_boosting",
  format_version: 1,
  loss: "squared_error",
  criterion: "friedman_mse",
  n_estimators: 2,
  max_depth: 3,
  learning_rate: 0.1,
  n_features: 2,
  init: 100,
  trees: [tree, tree],
};
const xgb = {
  kind: "xgboost_fit",
  format_version: 1,
  objective: "reg:squarederror",
  tree_method: "hist",
  max_depth: 6,
  eta: 0.1,
  lambda: 1,
  min_child_weight: 1,
  gamma: 0,
  max_bin: 256,
  n_features: 2,
  base_score: 1,
  trees: [tree],
};
const svr = {
  kind: "svr",
  format_version: 1,
  kernel: "rbf",
  C: 1,
  epsilon: 0.2,
  gamma: 0.5,
  intercept: 3,
  n_features: 2,
  support_vector_columns: [
    [0, 1],
    [0, 0],
  ],
  dual_coef: [2, -1],
};
// rows (x0, x1): (0, 0), (1, 1), (1, 3)
const x = { rows: 3, cols: 2, values: Float64Array.of(0, 1, 1, 0, 1, 3) };

describe("tree and SVR model files", () => {
  it("parse through parseComponentModelFile and predict in wasm-core", () => {
    for (const file of [gbr, xgb, svr])
      expect(parseComponentModelFile(JSON.parse(JSON.stringify(file)))).toEqual(parseTreeModelFile(file));
    // 100 + 0.1 * leaf + 0.1 * leaf
    expect(Array.from(predictTreeModelFile(parseTreeModelFile(gbr), x))).toEqual([102, 104, 106]);
    expect(Array.from(predictTreeModelFile(parseTreeModelFile(xgb), x))).toEqual([11, 21, 31]);
    const parsedSvr = parseTreeModelFile(svr);
    // 2 exp(-0.5 |x - (0, 0)|^2) - exp(-0.5 |x - (1, 0)|^2) + 3
    const expected = [2 - Math.exp(-0.5) + 3, 2 * Math.exp(-1) - Math.exp(-0.5) + 3, 2 * Math.exp(-5) - Math.exp(-4.5) + 3];
    const predicted = createTreeModelPredictor(parsedSvr)(x);
    expected.forEach((e, i) => {
      expect(predicted[i]).toBeCloseTo(e, 14);
    });
  });

  it("refuses malformed trees, naming the field", () => {
    const backwards = { ...gbr, trees: [{ ...tree, left: [1, -1, 1, -1, -1] }] };
    expect(() => parseComponentModelFile(backwards)).toThrow(
      new InvalidInputError(
        "model.trees[0].left[2]",
        "children must come after their parent and inside the tree (got 1, 4 of 5 nodes)",
      ),
    );
    const short = { ...gbr, trees: [{ ...tree, value: [0, 10] }] };
    expect(() => parseComponentModelFile(short)).toThrow(
      new InvalidInputError("model.trees[0].value", "expected 5 entries, as feature"),
    );
    const badFeature = { ...xgb, trees: [{ ...tree, feature: [2, -2, 1, -2, -2] }] };
    expect(() => parseComponentModelFile(badFeature)).toThrow(
      new InvalidInputError("model.trees[0].feature[0]", "expected -2 or a feature index below 2, got 2"),
    );
  });

  it("refuses SVR files whose columns and coefficients disagree", () => {
    expect(() => parseComponentModelFile({ ...svr, dual_coef: [2] })).toThrow(
      new InvalidInputError("model.support_vector_columns[0]", "expected 1 values (one per dual coefficient), got 2"),
    );
    expect(() => parseComponentModelFile({ ...svr, n_features: 3 })).toThrow(
      new InvalidInputError("model.support_vector_columns", "expected 3 columns (one per feature)"),
    );
    expect(() => parseComponentModelFile({ ...svr, gamma: 0 })).toThrow(
      new InvalidInputError("model.gamma", "expected a positive number"),
    );
  });

  it("refuses files over the size limits", () => {
    const many = { ...xgb, trees: Array.from({ length: 5001 }, () => tree) };
    expect(() => parseComponentModelFile(many)).toThrow(
      new InvalidInputError("model.trees", "5001 trees exceed the limit of 5000"),
    );
    const wide = {
      ...svr,
      n_features: 1,
      support_vector_columns: [new Array(50_001).fill(0)],
      dual_coef: new Array(50_001).fill(1),
    };
    expect(() => parseComponentModelFile(wide)).toThrow(
      new InvalidInputError("model.dual_coef", "50001 support vectors exceed the limit of 50000"),
    );
  });

  it("checks the feature count at prediction", () => {
    const parsed = parseTreeModelFile(gbr);
    expect(() => predictTreeModelFile(parsed, { rows: 1, cols: 3, values: Float64Array.of(0, 0, 0) })).toThrow(
      new InvalidInputError("features", "the gradient_boosting model needs 2 features, got 3"),
    );
  });
});
