// XgboostFitTrainer: the reference's xgb.XGBRegressor(n_estimators=100, learning_rate=0.1) with
// XGBoost's defaults (squared error, max_depth 6, lambda 1, min_child_weight 1, gamma 0, hist split
// finding with 256 bins, base score = mean), as second-order boosting in wasm-core. A checkpoint is
// continued, as the reference's retrain `fit(X, y, xgb_model=model)`: 100 more trees on top.
// Degenerate input: a constant target gives single-leaf trees of value 0 on base score = the constant;
// duplicate rows are kept; fewer than 2 training rows fail the trainer; a continued model that would
// pass the tree limit fails with the limit named (train without continuing to start over).
import { fitHistogramBoosting, type HistogramBoostingModel, type Matrix } from "../../../../wasm-core/src/index.js";
import {
  type ComponentModelFile,
  countTreeNodes,
  DEFAULT_TREE_MODEL_LIMITS,
  fromRegressionTree,
  predictTreeModelFile,
  type TreeModelLimits,
  toRegressionTree,
} from "../../../models/index.js";
import { expectModelKind, type FitContext, TrainerFitError, type TrainerImplementation } from "../trainer.js";

const NAME = "XgboostFitTrainer";
const ROUNDS = 100;
const PARAMETERS = { maxDepth: 6, eta: 0.1, lambda: 1, minChildWeight: 1, gamma: 0, maxBins: 256 } as const;

/** The trainer with explicit model-size limits (the registered one uses DEFAULT_TREE_MODEL_LIMITS). */
export function createXgboostFitTrainer(limits: TreeModelLimits = DEFAULT_TREE_MODEL_LIMITS): TrainerImplementation {
  return {
    name: NAME,
    modelClass: "xgboost",
    weightCapable: false,
    continuesFromCheckpoint: true,
    description:
      "100 rounds of second-order boosting on squared error: eta 0.1, max_depth 6, lambda 1, min_child_weight 1, 256 histogram bins; continues a checkpoint.",
    featureEngineering: () => [],
    fit(x: Matrix, y: Float64Array, context: FitContext): ComponentModelFile {
      if (x.rows < 2) throw new TrainerFitError(`needs at least 2 training rows, got ${x.rows}`);
      let previous: HistogramBoostingModel | undefined;
      if (context.previous !== undefined) {
        const p = expectModelKind(context.previous, "xgboost_fit", NAME);
        if (p.n_features !== x.cols)
          throw new TrainerFitError(`the checkpoint has ${p.n_features} features, the table ${x.cols}`);
        if (p.trees.length + ROUNDS > limits.maxTrees) {
          throw new TrainerFitError(
            `continuing the checkpoint would give ${p.trees.length + ROUNDS} trees, over the limit of ${limits.maxTrees}: train without continuing to start over`,
          );
        }
        previous = { baseScore: p.base_score, trees: p.trees.map(toRegressionTree) };
      }
      const fitted = fitHistogramBoosting(x, y, { rounds: ROUNDS, ...PARAMETERS, previous });
      const nodes = countTreeNodes(fitted.trees);
      if (nodes > limits.maxTreeNodes)
        throw new TrainerFitError(`the model has ${nodes} tree nodes, over the limit of ${limits.maxTreeNodes}`);
      return {
        kind: "xgboost_fit",
        format_version: 1,
        objective: "reg:squarederror",
        tree_method: "hist",
        max_depth: PARAMETERS.maxDepth,
        eta: PARAMETERS.eta,
        lambda: PARAMETERS.lambda,
        min_child_weight: PARAMETERS.minChildWeight,
        gamma: PARAMETERS.gamma,
        max_bin: PARAMETERS.maxBins,
        n_features: x.cols,
        base_score: fitted.baseScore,
        trees: fitted.trees.map(fromRegressionTree),
      };
    },
    predict(model: ComponentModelFile, x: Matrix): Float64Array {
      return predictTreeModelFile(expectModelKind(model, "xgboost_fit", NAME), x);
    },
  };
}

export const xgboostFitTrainer: TrainerImplementation = createXgboostFitTrainer();
