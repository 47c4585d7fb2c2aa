// What the trainers whose model is coefficients and an intercept on the scaled features share
// (LinearRegression, SGDRegressor): no engineered features, a linear prediction, and Kepler's weight.json.
import { predictLinear } from "../../../../wasm-core/src/index.js";
import { createLinearWeights } from "../../../models/index.js";
import { expectModelKind, type TrainerImplementation } from "../trainer.js";

/** The methods of a trainer whose `kind` of model is linear in the scaled features. */
export function linearModelMethods(
  kind: "linear" | "sgd",
  trainer: string,
): Pick<TrainerImplementation, "featureEngineering" | "predict" | "toWeights"> {
  return {
    featureEngineering: () => [],
    predict(model, x) {
      const m = expectModelKind(model, kind, trainer);
      return predictLinear({ coefficients: Float64Array.from(m.coefficients), intercept: m.intercept }, x);
    },
    toWeights(model, features, scale) {
      const m = expectModelKind(model, kind, trainer);
      return createLinearWeights(features, scale, m.coefficients, m.intercept);
    },
  };
}
