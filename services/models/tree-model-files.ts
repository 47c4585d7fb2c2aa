// Our documented JSON for the non-linear component models of GradientBoostingRegressorTrainer,
// XgboostFitTrainer and SVRRegressorTrainer (the reference pickles sklearn estimators and saves
// XGBoost's own JSON). Readable without Python: trees are sklearn's `tree_` arrays, SVR is its
// support vectors and dual coefficients. Format reference: docs/trainers.md "Model files".
// Prediction (for the trainer, the estimator and the isolator) runs in wasm-core (tree-model-predictor.ts).
import { TREE_LEAF, TREE_UNDEFINED } from "../../wasm-core/src/index.js";
import { InvalidInputError } from "../domain/errors.js";

/**
 * One regression tree, node 0 the root, as flat arrays of equal length (sklearn's `tree_`): a row
 * goes to `left[i]` when float32(x[feature[i]]) <= threshold[i], else to `right[i]`. A leaf has
 * feature -2, threshold -2 and children -1; `value[i]` is the leaf's output. Children come after
 * their parent.
 */
export interface TreeArrays {
  feature: number[];
  threshold: number[];
  left: number[];
  right: number[];
  value: number[];
}

/**
 * GradientBoostingRegressor: prediction = init + sum over trees of learning_rate * leaf value
 * (leaf values are residual means, as sklearn stores them).
 */
export interface GradientBoostingModelFile {
  kind: "gradient_boosting";
  format_version: 1;
  loss: "squared_error";
  criterion: "friedman_mse";
  n_estimators: number;
  max_depth: number;
  learning_rate: number;
  n_features: number;
  /** The initial prediction, mean(y) of the training rows. */
  init: number;
  trees: TreeArrays[];
}

/**
 * XGBoost-style second-order boosting (hist split finding): prediction = base_score + sum over trees
 * of the leaf value (leaf values already include eta). A continued fit appends trees.
 */
export interface XgboostFitModelFile {
  kind: "xgboost_fit";
  format_version: 1;
  objective: "reg:squarederror";
  tree_method: "hist";
  max_depth: number;
  eta: number;
  lambda: number;
  min_child_weight: number;
  gamma: number;
  max_bin: number;
  n_features: number;
  /** mean(y) of the first fit's training rows. */
  base_score: number;
  trees: TreeArrays[];
}

/**
 * Epsilon-SVR, RBF kernel: prediction = sum_s dual_coef[s] exp(-gamma |sv_s - x|^2) + intercept, where
 * sv_s is support vector s (row s of support_vector_columns).
 */
export interface SvrModelFile {
  kind: "svr";
  format_version: 1;
  kernel: "rbf";
  C: number;
  epsilon: number;
  gamma: number;
  intercept: number;
  n_features: number;
  /** The support vectors (scaled features), one array per feature (column-major, as KNN's fit_x_columns). */
  support_vector_columns: number[][];
  /** alpha+ - alpha- per support vector (sklearn's dual_coef_). */
  dual_coef: number[];
}

/** The model files defined here. */
export type TreeModelFile = GradientBoostingModelFile | XgboostFitModelFile | SvrModelFile;

/** The kinds defined here. */
export const TREE_MODEL_KINDS = ["gradient_boosting", "xgboost_fit", "svr"] as const;

/**
 * Size limits a model file must respect, when written by a trainer and when read: a boosted model that
 * keeps being continued grows by 100 trees per retrain, and an SVR keeps up to every training row.
 */
export interface TreeModelLimits {
  /** Most trees in one ensemble (a continued XgboostFitTrainer model counts all of them). */
  maxTrees: number;
  /** Most nodes in all trees of one ensemble. */
  maxTreeNodes: number;
  /** Most support vectors of one SVR model. */
  maxSupportVectors: number;
}

/** Defaults: 5,000 trees (50 continued fits), 2 million nodes, 50,000 support vectors. */
export const DEFAULT_TREE_MODEL_LIMITS: TreeModelLimits = { maxTrees: 5000, maxTreeNodes: 2_000_000, maxSupportVectors: 50_000 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function finite(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new InvalidInputError(field, "expected a finite number");
  return value;
}

function positiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw new InvalidInputError(field, "expected a positive integer");
  return value;
}

function numbers(value: unknown, field: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "number" && Number.isFinite(v))) {
    throw new InvalidInputError(field, "expected an array of finite numbers");
  }
  return value as number[];
}

function integers(value: unknown, field: string): number[] {
  const list = numbers(value, field);
  if (!list.every(Number.isInteger)) throw new InvalidInputError(field, "expected an array of integers");
  return list;
}

function parseTree(value: unknown, field: string, nFeatures: number): TreeArrays {
  if (!isRecord(value)) throw new InvalidInputError(field, "expected a tree object");
  const tree: TreeArrays = {
    feature: integers(value.feature, `${field}.feature`),
    threshold: numbers(value.threshold, `${field}.threshold`),
    left: integers(value.left, `${field}.left`),
    right: integers(value.right, `${field}.right`),
    value: numbers(value.value, `${field}.value`),
  };
  const count = tree.feature.length;
  if (count === 0) throw new InvalidInputError(`${field}.feature`, "a tree needs at least one node");
  for (const key of ["threshold", "left", "right", "value"] as const) {
    if (tree[key].length !== count) throw new InvalidInputError(`${field}.${key}`, `expected ${count} entries, as feature`);
  }
  for (let i = 0; i < count; i++) {
    const feature = tree.feature[i] as number;
    const left = tree.left[i] as number;
    const right = tree.right[i] as number;
    if (feature === TREE_UNDEFINED) {
      if (left !== TREE_LEAF || right !== TREE_LEAF)
        throw new InvalidInputError(`${field}.left[${i}]`, "a leaf (feature -2) has children -1");
      continue;
    }
    if (feature < 0 || feature >= nFeatures)
      throw new InvalidInputError(`${field}.feature[${i}]`, `expected -2 or a feature index below ${nFeatures}, got ${feature}`);
    if (left <= i || left >= count || right <= i || right >= count) {
      throw new InvalidInputError(
        `${field}.left[${i}]`,
        `children must come after their parent and inside the tree (got ${left}, ${right} of ${count} nodes)`,
      );
    }
  }
  return tree;
}

function parseTrees(value: unknown, field: string, nFeatures: number, limits: TreeModelLimits): TreeArrays[] {
  if (!Array.isArray(value) || value.length === 0) throw new InvalidInputError(field, "expected a non-empty array of trees");
  if (value.length > limits.maxTrees)
    throw new InvalidInputError(field, `${value.length} trees exceed the limit of ${limits.maxTrees}`);
  const trees = value.map((tree, t) => parseTree(tree, `${field}[${t}]`, nFeatures));
  const nodes = countTreeNodes(trees);
  if (nodes > limits.maxTreeNodes)
    throw new InvalidInputError(field, `${nodes} nodes exceed the limit of ${limits.maxTreeNodes}`);
  return trees;
}

/** Total nodes of an ensemble. */
export function countTreeNodes(trees: readonly { feature: ArrayLike<number> }[]): number {
  return trees.reduce((sum, tree) => sum + tree.feature.length, 0);
}

/**
 * Parses and checks one of the model files defined here (`value.kind` is one of TREE_MODEL_KINDS).
 * Throws InvalidInputError naming the field for anything malformed or over the limits.
 */
export function parseTreeModelFile(
  value: unknown,
  field = "model",
  limits: TreeModelLimits = DEFAULT_TREE_MODEL_LIMITS,
): TreeModelFile {
  if (!isRecord(value)) throw new InvalidInputError(field, "expected an object");
  if (value.format_version !== 1)
    throw new InvalidInputError(`${field}.format_version`, `unsupported version ${String(value.format_version)}`);
  switch (value.kind) {
    case "gradient_boosting": {
      const nFeatures = positiveInteger(value.n_features, `${field}.n_features`);
      return {
        kind: "gradient_boosting",
        format_version: 1,
        loss: "squared_error",
        criterion: "friedman_mse",
        n_estimators: positiveInteger(value.n_estimators, `${field}.n_estimators`),
        max_depth: positiveInteger(value.max_depth, `${field}.max_depth`),
        learning_rate: finite(value.learning_rate, `${field}.learning_rate`),
        n_features: nFeatures,
        init: finite(value.init, `${field}.init`),
        trees: parseTrees(value.trees, `${field}.trees`, nFeatures, limits),
      };
    }
    case "xgboost_fit": {
      const nFeatures = positiveInteger(value.n_features, `${field}.n_features`);
      return {
        kind: "xgboost_fit",
        format_version: 1,
        objective: "reg:squarederror",
        tree_method: "hist",
        max_depth: positiveInteger(value.max_depth, `${field}.max_depth`),
        eta: finite(value.eta, `${field}.eta`),
        lambda: finite(value.lambda, `${field}.lambda`),
        min_child_weight: finite(value.min_child_weight, `${field}.min_child_weight`),
        gamma: finite(value.gamma, `${field}.gamma`),
        max_bin: positiveInteger(value.max_bin, `${field}.max_bin`),
        n_features: nFeatures,
        base_score: finite(value.base_score, `${field}.base_score`),
        trees: parseTrees(value.trees, `${field}.trees`, nFeatures, limits),
      };
    }
    case "svr": {
      const nFeatures = positiveInteger(value.n_features, `${field}.n_features`);
      if (value.kernel !== "rbf")
        throw new InvalidInputError(`${field}.kernel`, `only "rbf" is supported, got ${String(value.kernel)}`);
      const gamma = finite(value.gamma, `${field}.gamma`);
      if (gamma <= 0) throw new InvalidInputError(`${field}.gamma`, "expected a positive number");
      if (!Array.isArray(value.support_vector_columns) || value.support_vector_columns.length !== nFeatures) {
        throw new InvalidInputError(`${field}.support_vector_columns`, `expected ${nFeatures} columns (one per feature)`);
      }
      const columns = value.support_vector_columns.map((column, j) => numbers(column, `${field}.support_vector_columns[${j}]`));
      const dualCoef = numbers(value.dual_coef, `${field}.dual_coef`);
      if (dualCoef.length > limits.maxSupportVectors) {
        throw new InvalidInputError(
          `${field}.dual_coef`,
          `${dualCoef.length} support vectors exceed the limit of ${limits.maxSupportVectors}`,
        );
      }
      columns.forEach((column, j) => {
        if (column.length !== dualCoef.length) {
          throw new InvalidInputError(
            `${field}.support_vector_columns[${j}]`,
            `expected ${dualCoef.length} values (one per dual coefficient), got ${column.length}`,
          );
        }
      });
      return {
        kind: "svr",
        format_version: 1,
        kernel: "rbf",
        C: finite(value.C, `${field}.C`),
        epsilon: finite(value.epsilon, `${field}.epsilon`),
        gamma,
        intercept: finite(value.intercept, `${field}.intercept`),
        n_features: nFeatures,
        support_vector_columns: columns,
        dual_coef: dualCoef,
      };
    }
    default:
      throw new InvalidInputError(`${field}.kind`, `expected one of ${TREE_MODEL_KINDS.join(", ")}, got ${String(value.kind)}`);
  }
}
