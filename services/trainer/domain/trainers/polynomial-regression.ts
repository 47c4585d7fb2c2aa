// PolynomialRegressionTrainer: sklearn PolynomialFeatures(degree=2) (bias, linear terms, squares and
// interactions in sklearn's order) followed by LinearRegression() (ordinary least squares with an
// intercept, minimum-norm for the constant bias column, whose coefficient is therefore 0) (spec §5.2).
// The expansion happens inside the kernel, row chunk by row chunk, so the wide matrix never exists.
import { fitPolynomialLinear, type Matrix, predictPolynomialLinear } from "../../../../wasm-core/src/index.js";
import { type ComponentModelFile, POLYNOMIAL_FEATURES_FILE } from "../../../models/index.js";
import { expectModelKind, type TrainerImplementation } from "../trainer.js";

const NAME = "PolynomialRegressionTrainer";

export const polynomialRegressionTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: false,
  continuesFromCheckpoint: false,
  description: "Degree-2 polynomial expansion (bias, linear, squares, interactions) then ordinary least squares.",
  featureEngineering: (featureCount) => [
    {
      name: POLYNOMIAL_FEATURES_FILE,
      content: { kind: "polynomial_features", format_version: 1, degree: 2, include_bias: true, n_features_in: featureCount },
    },
  ],
  fit(x: Matrix, y: Float64Array): ComponentModelFile {
    const fitted = fitPolynomialLinear(x, y);
    return {
      kind: "polynomial",
      format_version: 1,
      degree: 2,
      coefficients: Array.from(fitted.coefficients),
      intercept: fitted.intercept,
    };
  },
  predict(model: ComponentModelFile, x: Matrix): Float64Array {
    const m = expectModelKind(model, "polynomial", NAME);
    return predictPolynomialLinear({ coefficients: Float64Array.from(m.coefficients), intercept: m.intercept }, x);
  },
};
