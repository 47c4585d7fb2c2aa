// LinearRegressionTrainer: sklearn LinearRegression(positive=True), i.e. non-negative least squares on
// the scaled features with a free intercept (spec §5.2).
import { fitLinear, type Matrix } from "../../../../wasm-core/src/index.js";
import type { ComponentModelFile } from "../../../models/index.js";
import type { TrainerImplementation } from "../trainer.js";
import { linearModelMethods } from "./linear-model-methods.js";

const NAME = "LinearRegressionTrainer";

export const linearRegressionTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: true,
  continuesFromCheckpoint: false,
  description: "Least squares with non-negative coefficients and a free intercept (LinearRegression(positive=True)).",
  fit(x: Matrix, y: Float64Array): ComponentModelFile {
    const fitted = fitLinear(x, y, { positive: true });
    return { kind: "linear", format_version: 1, coefficients: Array.from(fitted.coefficients), intercept: fitted.intercept };
  },
  ...linearModelMethods("linear", NAME),
};
