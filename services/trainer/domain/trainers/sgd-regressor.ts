// SGDRegressorTrainer: sklearn SGDRegressor(max_iter=1000) with its defaults (squared loss, L2 alpha
// 1e-4, invscaling eta0 0.01 power_t 0.25, tol 1e-3 with n_iter_no_change 5, shuffling), seeded.
// A checkpoint is continued (warm start from its coefficients, intercept and update count).
import { fitSgd, type Matrix, type SgdModel } from "../../../../wasm-core/src/index.js";
import type { ComponentModelFile } from "../../../models/index.js";
import { expectModelKind, type FitContext, type TrainerImplementation } from "../trainer.js";
import { linearModelMethods } from "./linear-model-methods.js";

const NAME = "SGDRegressorTrainer";

export const sgdRegressorTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: true,
  continuesFromCheckpoint: true,
  description:
    "Stochastic gradient descent on squared loss with L2 alpha 1e-4, invscaling eta0 0.01, power_t 0.25, max_iter 1000, tol 1e-3, seeded.",
  fit(x: Matrix, y: Float64Array, context: FitContext): ComponentModelFile {
    let warmStart: SgdModel | undefined;
    if (context.previous !== undefined) {
      const p = expectModelKind(context.previous, "sgd", NAME);
      warmStart = {
        coefficients: Float64Array.from(p.coefficients),
        intercept: p.intercept,
        t: p.t,
        epochs: p.epochs,
        converged: p.converged,
      };
    }
    const fitted = fitSgd(x, y, { seed: context.seed, warmStart });
    return {
      kind: "sgd",
      format_version: 1,
      coefficients: Array.from(fitted.coefficients),
      intercept: fitted.intercept,
      t: fitted.t,
      epochs: fitted.epochs,
      converged: fitted.converged,
    };
  },
  ...linearModelMethods("sgd", NAME),
};
