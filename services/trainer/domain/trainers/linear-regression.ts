// LinearRegressionTrainer: sklearn LinearRegression(positive=True), i.e. non-negative least squares on
// the scaled features with a free intercept (spec §5.2).
import { fitLinear, type Matrix, predictLinear } from "../../../../wasm-core/src/index.js";
import { type ComponentModelFile, createLinearWeights } from "../../../models/index.js";
import { expectModelKind, type TrainerImplementation } from "../trainer.js";

const NAME = "LinearRegressionTrainer";

export const linearRegressionTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: true,
  continuesFromCheckpoint: false,
  description: "Least squares with non-negative coefficients and a free intercept (LinearRegression(positive=True)).",
  featureEngineering: () => [],
  fit(x: Matrix, y: Float64Array): ComponentModelFile {
    const fitted = fitLinear(x, y, { positive: true });
    return { kind: "linear", format_version: 1, coefficients: Array.from(fitted.coefficients), intercept: fitted.intercept };
  },
  predict(model: ComponentModelFile, x: Matrix): Float64Array {
    const m = expectModelKind(model, "linear", NAME);
    return predictLinear({ coefficients: Float64Array.from(m.coefficients), intercept: m.intercept }, x);
  },
  toWeights(model, features, scale) {
    const m = expectModelKind(model, "linear", NAME);
    return createLinearWeights(features, scale, m.coefficients, m.intercept);
  },
};
