// The model files of tree-model-files.ts as wasm-core inputs: typed tree arrays, ensembles and SVR
// predictors, and prediction for the trainer, the estimator and the isolator.
import {
  type Matrix,
  predictSvr,
  predictTreeEnsemble,
  type RegressionTree,
  type SvrPredictor,
  type TreeEnsemble,
  type WasmMatrix,
} from "../../wasm-core/src/index.js";
import { InvalidInputError } from "../domain/errors.js";
import type {
  GradientBoostingModelFile,
  SvrModelFile,
  TreeArrays,
  TreeModelFile,
  XgboostFitModelFile,
} from "./tree-model-files.js";

/** Tree arrays of a JSON tree, typed for wasm-core. */
export function toRegressionTree(tree: TreeArrays): RegressionTree {
  return {
    feature: Int32Array.from(tree.feature),
    threshold: Float64Array.from(tree.threshold),
    left: Int32Array.from(tree.left),
    right: Int32Array.from(tree.right),
    value: Float64Array.from(tree.value),
  };
}

/** JSON arrays of a fitted tree. */
export function fromRegressionTree(tree: RegressionTree): TreeArrays {
  return {
    feature: Array.from(tree.feature),
    threshold: Array.from(tree.threshold),
    left: Array.from(tree.left),
    right: Array.from(tree.right),
    value: Array.from(tree.value),
  };
}

/** The wasm-core ensemble of a boosting model file. */
export function toTreeEnsemble(model: GradientBoostingModelFile | XgboostFitModelFile): TreeEnsemble {
  const trees = model.trees.map(toRegressionTree);
  return model.kind === "gradient_boosting"
    ? { base: model.init, scale: model.learning_rate, trees }
    : { base: model.base_score, scale: 1, trees };
}

/** The wasm-core predictor of an SVR model file. */
export function toSvrPredictor(model: SvrModelFile): SvrPredictor {
  const count = model.dual_coef.length;
  const values = new Float64Array(count * model.n_features);
  model.support_vector_columns.forEach((column, j) => {
    values.set(column, j * count);
  });
  return {
    supportVectors: { rows: count, cols: model.n_features, values },
    dualCoef: Float64Array.from(model.dual_coef),
    intercept: model.intercept,
    gamma: model.gamma,
  };
}

function assertFeatureCount(model: TreeModelFile, x: Matrix | WasmMatrix): void {
  if (x.cols !== model.n_features)
    throw new InvalidInputError("features", `the ${model.kind} model needs ${model.n_features} features, got ${x.cols}`);
}

/** Predicts scaled rows with a model file (one-off: see createTreeModelPredictor for repeated use). */
export function predictTreeModelFile(model: TreeModelFile, x: Matrix | WasmMatrix): Float64Array {
  assertFeatureCount(model, x);
  return model.kind === "svr" ? predictSvr(toSvrPredictor(model), x) : predictTreeEnsemble(toTreeEnsemble(model), x);
}

/**
 * Prepares a model file for repeated prediction (the estimator's and isolator's per-model setup): the
 * JSON arrays become typed arrays once; each call copies them into wasm memory for the kernel.
 */
export function createTreeModelPredictor(model: TreeModelFile): (x: Matrix | WasmMatrix) => Float64Array {
  if (model.kind === "svr") {
    const svr = toSvrPredictor(model);
    return (x) => {
      assertFeatureCount(model, x);
      return predictSvr(svr, x);
    };
  }
  const ensemble = toTreeEnsemble(model);
  return (x) => {
    assertFeatureCount(model, x);
    return predictTreeEnsemble(ensemble, x);
  };
}
