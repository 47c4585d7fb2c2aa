// GradientBoostingRegressorTrainer: sklearn GradientBoostingRegressor(n_estimators=100, max_depth=3,
// learning_rate=0.1) with its defaults (squared error, init = mean, friedman_mse, subsample 1.0,
// min_samples_split 2, min_samples_leaf 1), exact best splits in wasm-core. Refits from scratch on
// every run, as the reference's scikit trainers do.
// Degenerate input: a constant target gives single-leaf trees predicting the constant; duplicate rows
// are kept (they count twice, as in sklearn); fewer than 2 training rows fail the trainer.
import { fitGradientBoosting, type Matrix } from "../../../../wasm-core/src/index.js";
import { type ComponentModelFile, fromRegressionTree, predictTreeModelFile } from "../../../models/index.js";
import { expectModelKind, type FitContext, TrainerFitError, type TrainerImplementation } from "../trainer.js";

const NAME = "GradientBoostingRegressorTrainer";
const N_ESTIMATORS = 100;
const MAX_DEPTH = 3;
const LEARNING_RATE = 0.1;

export const gradientBoostingRegressorTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: false,
  continuesFromCheckpoint: false,
  description:
    "100 regression trees of depth 3 boosted on squared error with learning rate 0.1 (friedman_mse, exact splits, random_state = seed).",
  featureEngineering: () => [],
  fit(x: Matrix, y: Float64Array, context: FitContext): ComponentModelFile {
    if (x.rows < 2) throw new TrainerFitError(`needs at least 2 training rows, got ${x.rows}`);
    const fitted = fitGradientBoosting(x, y, {
      nEstimators: N_ESTIMATORS,
      maxDepth: MAX_DEPTH,
      learningRate: LEARNING_RATE,
      randomState: context.seed,
    });
    return {
      kind: "gradient_boosting",
      format_version: 1,
      loss: "squared_error",
      criterion: "friedman_mse",
      n_estimators: N_ESTIMATORS,
      max_depth: MAX_DEPTH,
      learning_rate: LEARNING_RATE,
      n_features: x.cols,
      init: fitted.init,
      trees: fitted.trees.map(fromRegressionTree),
    };
  },
  predict(model: ComponentModelFile, x: Matrix): Float64Array {
    return predictTreeModelFile(expectModelKind(model, "gradient_boosting", NAME), x);
  },
};
