// SVRRegressorTrainer: sklearn SVR(C=1.0, epsilon=0.2) with its defaults (RBF kernel, gamma "scale" =
// 1 / (features * Var(X)), tol 1e-3), solved by SMO in wasm-core as libsvm. Refits from scratch.
// Degenerate input: a constant target c gives no support vectors and intercept c (libsvm's rho from
// the bounds), all features equal give gamma 1 (sklearn); duplicate rows are kept; fewer than 2
// training rows fail the trainer, and so does a table with more rows than the support-vector limit
// (every row may become a support vector; SMO's time grows with rows^2).
import { fitSvr, type Matrix } from "../../../../wasm-core/src/index.js";
import {
  type ComponentModelFile,
  DEFAULT_TREE_MODEL_LIMITS,
  predictTreeModelFile,
  type TreeModelLimits,
} from "../../../models/index.js";
import { expectModelKind, TrainerFitError, type TrainerImplementation } from "../trainer.js";

const NAME = "SVRRegressorTrainer";
const C = 1.0;
const EPSILON = 0.2;

/** The trainer with explicit model-size limits (the registered one uses DEFAULT_TREE_MODEL_LIMITS). */
export function createSvrRegressorTrainer(limits: TreeModelLimits = DEFAULT_TREE_MODEL_LIMITS): TrainerImplementation {
  return {
    name: NAME,
    modelClass: "scikit",
    weightCapable: false,
    continuesFromCheckpoint: false,
    description: "Epsilon-SVR with an RBF kernel: C 1.0, epsilon 0.2, gamma scale, SMO to tol 1e-3.",
    featureEngineering: () => [],
    fit(x: Matrix, y: Float64Array): ComponentModelFile {
      if (x.rows < 2) throw new TrainerFitError(`needs at least 2 training rows, got ${x.rows}`);
      if (x.rows > limits.maxSupportVectors) {
        throw new TrainerFitError(`${x.rows} training rows exceed the support-vector limit of ${limits.maxSupportVectors}`);
      }
      const fitted = fitSvr(x, y, { c: C, epsilon: EPSILON, gamma: "scale", tol: 1e-3 });
      const count = fitted.dualCoef.length;
      return {
        kind: "svr",
        format_version: 1,
        kernel: "rbf",
        C,
        epsilon: EPSILON,
        gamma: fitted.gamma,
        intercept: fitted.intercept,
        n_features: x.cols,
        support_vector_columns: Array.from({ length: x.cols }, (_, j) =>
          Array.from(fitted.supportVectors.values.subarray(j * count, (j + 1) * count)),
        ),
        dual_coef: Array.from(fitted.dualCoef),
      };
    },
    predict(model: ComponentModelFile, x: Matrix): Float64Array {
      return predictTreeModelFile(expectModelKind(model, "svr", NAME), x);
    },
  };
}

export const svrRegressorTrainer: TrainerImplementation = createSvrRegressorTrainer();
