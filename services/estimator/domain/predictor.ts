// Runs a loaded model on feature rows, entirely in wasm-core: our JSON component models (scaler, then
// linear / polynomial / SGD / KNN / curve fit, as the reference's Trainer.predict) or Kepler's
// weight.json alone (the Go regressor's formulas, kepler-collector §2.5). Predictions are clamped
// at 0, as the reference estimator's y[y < 0] = 0.
import { featureGroupOf, mainFeatureIndex } from "../../domain/feature-groups.js";
import { FailedPreconditionError } from "../../domain/errors.js";
import { type ComponentModelFile, type ComponentModels, createTreeModelPredictor, type WeightJson } from "../../models/index.js";
import {
  applyScaleResident,
  clampNonNegative,
  divideOrZero,
  linearModelSet,
  type Matrix,
  predictCurve,
  predictKeplerLinear,
  predictKnn,
  predictLinear,
  predictLinearMany,
  predictPolynomialLinear,
  predictPolynomialLinearMany,
  type WasmMatrix,
} from "../../../wasm-core/src/index.js";

/** Constant system features of a request (Kepler's system_features / system_values). */
export type SystemFeatures = ReadonlyMap<string, string>;

/** A model ready to predict. */
export interface Predictor {
  /** Components it predicts, in the energy source's order. */
  readonly components: readonly string[];
  /** The columns `predict` expects, in order, given the request's feature names. */
  inputFeatures(requestFeatures: readonly string[]): readonly string[];
  /**
   * Watts per component per row (>= 0) for a column-major matrix whose columns are `columns`
   * (the result of inputFeatures for the request).
   */
  predict(x: WasmMatrix, columns: readonly string[], system: SystemFeatures): Map<string, Float64Array>;
}

/** Everything our archive format holds for prediction. */

function scaledColumn(x: WasmMatrix, index: number): Float64Array {
  return x.buffer.view().slice(index * x.rows, (index + 1) * x.rows);
}

// KNN training columns as one column-major matrix, built once per model.
function fitMatrix(columns: readonly number[][]): Matrix {
  const rows = columns[0]?.length ?? 0;
  const values = new Float64Array(rows * columns.length);
  columns.forEach((c, j) => {
    values.set(c, j * rows);
  });
  return { rows, cols: columns.length, values };
}

/** Watts of one component (>= 0) from the scaled matrix, which stays in wasm memory for every component. */
type ScaledPredict = (scaled: WasmMatrix) => Float64Array;

function componentPredict(model: ComponentModelFile): ScaledPredict {
  switch (model.kind) {
    case "linear":
    case "sgd": {
      const linear = { coefficients: Float64Array.from(model.coefficients), intercept: model.intercept };
      return (scaled) => predictLinear(linear, scaled, { clampNonNegative: true });
    }
    case "polynomial": {
      const linear = { coefficients: Float64Array.from(model.coefficients), intercept: model.intercept };
      return (scaled) => predictPolynomialLinear(linear, scaled, { clampNonNegative: true });
    }
    case "k_neighbors": {
      const knn = { x: fitMatrix(model.fit_x_columns), y: Float64Array.from(model.fit_y), k: model.n_neighbors };
      return (scaled) => clampNonNegative(predictKnn(knn, scaled));
    }
    case "curve_fit":
      return (scaled) =>
        clampNonNegative(predictCurve(model.function, model.parameters, scaledColumn(scaled, model.feature_index)));
    case "gradient_boosting":
    case "xgboost_fit":
    case "svr": {
      const predict = createTreeModelPredictor(model);
      return (scaled) => clampNonNegative(predict(scaled));
    }
  }
}

// Every component linear (or every one polynomial): all of them in one pass through wasm.
function allComponentsPredict(models: ComponentModels): ((scaled: WasmMatrix) => Float64Array[]) | undefined {
  const kinds = new Set(models.components.map(([, model]) => (model.kind === "sgd" ? "linear" : model.kind)));
  const [kind] = kinds;
  if (kinds.size !== 1 || (kind !== "linear" && kind !== "polynomial")) return undefined;
  const linear = linearModelSet(
    models.components.map(([, model]) => {
      const { coefficients, intercept } = model as Extract<ComponentModelFile, { kind: "linear" | "sgd" | "polynomial" }>;
      return { coefficients: Float64Array.from(coefficients), intercept };
    }),
  );
  const many = kind === "linear" ? predictLinearMany : predictPolynomialLinearMany;
  return (scaled) => many(linear, scaled, { clampNonNegative: true });
}

/** A predictor over our JSON component models: MaxAbs scaling, then each component's model. */
export function createComponentPredictor(models: ComponentModels): Predictor {
  const predictors = models.components.map(([component, model]) => [component, componentPredict(model)] as const);
  const together = allComponentsPredict(models);
  const scale = Float64Array.from(models.scaler.scale);
  const features = [...models.features];
  return {
    components: predictors.map(([component]) => component),
    inputFeatures: () => features,
    predict(x) {
      const scaled = applyScaleResident(x, scale);
      try {
        if (together !== undefined) {
          const watts = together(scaled);
          return new Map(predictors.map(([component], index) => [component, watts[index]!]));
        }
        return new Map(predictors.map(([component, run]) => [component, run(scaled)]));
      } finally {
        scaled.buffer.free();
      }
    },
  };
}

const CURVE_TRAINERS: Readonly<Record<string, "exponential" | "logarithmic" | "logistic">> = {
  ExponentialRegressionTrainer: "exponential",
  LogarithmicRegressionTrainer: "logarithmic",
  LogisticRegressionTrainer: "logistic",
};

// Σ_k Categorical_Variables[system feature k][its value].weight; missing entries add 0 (as Kepler).
function categoricalOffset(weights: WeightJson[string], system: SystemFeatures): number {
  let offset = 0;
  for (const [name, value] of system) offset += weights.All_Weights.Categorical_Variables[name]?.[value]?.weight ?? 0;
  return offset;
}

/**
 * A predictor over Kepler's weight.json. Linear: bias + categorical + sum of weight * x / scale, summed
 * in the request's feature order as Kepler does. Curve fits (chosen by trainer name, as Kepler):
 * evaluated on the model's main feature (the reference Python's main_feature), not Kepler's first
 * request column (docs/deviations.md).
 */
export function createWeightPredictor(
  weights: WeightJson,
  trainerName: string,
  modelFeatures: readonly string[],
  components: readonly string[],
): Predictor {
  const present = components.filter((component) => weights[component] !== undefined);
  const curve = CURVE_TRAINERS[trainerName];
  const group = featureGroupOf(modelFeatures);
  const weighted = new Set(
    present.flatMap((component) => Object.keys((weights[component] as WeightJson[string]).All_Weights.Numerical_Variables)),
  );
  return {
    components: present,
    inputFeatures: (requestFeatures) =>
      curve !== undefined ? [...modelFeatures] : requestFeatures.filter((feature) => weighted.has(feature)),
    predict(x, columns, system) {
      const out = new Map<string, Float64Array>();
      for (const component of present) {
        const componentWeights = weights[component] as WeightJson[string];
        const all = componentWeights.All_Weights;
        const offset = categoricalOffset(componentWeights, system);
        if (curve === undefined) {
          const variables = columns.map((feature) => all.Numerical_Variables[feature]);
          const prediction = predictKeplerLinear(x, {
            scale: variables.map((v) => v?.scale ?? 0),
            weight: variables.map((v) => v?.weight ?? 0),
            bias: (all.Bias_Weight ?? 0) + offset,
          });
          out.set(component, clampNonNegative(prediction));
          continue;
        }
        const parameters = [...(all.CurveFit_Weights ?? [])];
        if (parameters.length !== (curve === "logistic" ? 4 : 3)) {
          throw new FailedPreconditionError(
            `weight.json of a ${trainerName} model has ${parameters.length} CurveFit_Weights for ${component}`,
          );
        }
        // cat + f(x) equals f(x) with its constant term (c for log/exp, off for logistic) shifted by cat.
        parameters[parameters.length - 1] = (parameters[parameters.length - 1] as number) + offset;
        const index = group === undefined ? 0 : mainFeatureIndex(group, component, modelFeatures);
        const feature = columns[index] as string;
        const values = x.buffer.view().slice(index * x.rows, (index + 1) * x.rows);
        const scaled = divideOrZero(values, all.Numerical_Variables[feature]?.scale ?? 0);
        out.set(component, clampNonNegative(predictCurve(curve, parameters, scaled)));
      }
      return out;
    },
  };
}
