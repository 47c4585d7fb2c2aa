// weight.json: the per-component weights Kepler's Go local regressor reads
// (kepler pkg/model/estimator/local/regressor/model_weights.go; spec §6.4, collector spec §2.4).
// Key names and order follow the reference's get_weight_dict exactly:
//   linear:    {"All_Weights": {"Bias_Weight", "Categorical_Variables": {}, "Numerical_Variables": {f: {scale, weight}}}}
//   curve fit: {"All_Weights": {"Categorical_Variables": {}, "Numerical_Variables": {f: {scale}}, "CurveFit_Weights": [...]}}
import { InvalidInputError } from "../domain/errors.js";

/** One numerical feature: Kepler computes value / scale (MaxAbs scale) and multiplies by weight. */
export interface NumericalVariable {
  scale: number;
  weight?: number;
}

/** Go's AllWeights. Categorical variables are always empty in models we train. */
export interface AllWeights {
  Bias_Weight?: number;
  Categorical_Variables: Record<string, Record<string, { weight: number }>>;
  Numerical_Variables: Record<string, NumericalVariable>;
  CurveFit_Weights?: number[];
}

/** Go's ModelWeights: one component. */
export interface ComponentWeights {
  All_Weights: AllWeights;
}

/** weight.json: component name -> weights (the v0.7.11 `map[string]ModelWeights` shape). */
export type WeightJson = Record<string, ComponentWeights>;

// Weights are a handful of numbers per component; JSON cannot carry NaN (it would become null).
function assertFiniteAll(values: ArrayLike<number>, field: string): void {
  const bad = Array.from(values).findIndex((v) => !Number.isFinite(v));
  if (bad >= 0) throw new InvalidInputError(field, `value ${bad} is not finite (${values[bad]})`);
}

/** Weights of a linear model on MaxAbs-scaled features: power = bias + sum weight_i * x_i / scale_i. */
export function createLinearWeights(
  features: readonly string[],
  scale: ArrayLike<number>,
  coefficients: ArrayLike<number>,
  intercept: number,
): ComponentWeights {
  if (scale.length !== features.length || coefficients.length !== features.length) {
    throw new InvalidInputError(
      "weights",
      `expected ${features.length} scales and coefficients, got ${scale.length} and ${coefficients.length}`,
    );
  }
  assertFiniteAll(coefficients, "weights.coefficients");
  assertFiniteAll([intercept], "weights.intercept");
  const numerical: Record<string, NumericalVariable> = {};
  features.forEach((feature, i) => {
    numerical[feature] = { scale: scale[i] as number, weight: coefficients[i] as number };
  });
  return { All_Weights: { Bias_Weight: intercept, Categorical_Variables: {}, Numerical_Variables: numerical } };
}

/** Weights of a curve fit: the MaxAbs scales of all features plus the fitted parameters (popt). */
export function createCurveFitWeights(
  features: readonly string[],
  scale: ArrayLike<number>,
  parameters: ArrayLike<number>,
): ComponentWeights {
  if (scale.length !== features.length) {
    throw new InvalidInputError("weights", `expected ${features.length} scales, got ${scale.length}`);
  }
  assertFiniteAll(parameters, "weights.parameters");
  const numerical: Record<string, NumericalVariable> = {};
  features.forEach((feature, i) => {
    numerical[feature] = { scale: scale[i] as number };
  });
  return { All_Weights: { Categorical_Variables: {}, Numerical_Variables: numerical, CurveFit_Weights: Array.from(parameters) } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function expectNumber(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new InvalidInputError(field, "expected a finite number");
  return value;
}

/**
 * Parses and checks weight.json text. Top-level `model_name` / `machine_spec` (Kepler >= 0.7.12's
 * struct form) are accepted and left out of the result.
 */
export function parseWeightJson(text: string, field = "weight.json"): WeightJson {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(field, `not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(parsed)) throw new InvalidInputError(field, "expected an object of components");
  const result: WeightJson = {};
  for (const [component, value] of Object.entries(parsed)) {
    if (component === "model_name" || component === "machine_spec" || component === "mae") continue;
    const path = `${field}.${component}`;
    if (!isRecord(value) || !isRecord(value.All_Weights)) throw new InvalidInputError(path, 'expected {"All_Weights": {...}}');
    const all = value.All_Weights;
    if (!isRecord(all.Numerical_Variables))
      throw new InvalidInputError(`${path}.All_Weights.Numerical_Variables`, "expected an object");
    const numerical: Record<string, NumericalVariable> = {};
    for (const [feature, variable] of Object.entries(all.Numerical_Variables)) {
      const vpath = `${path}.All_Weights.Numerical_Variables.${feature}`;
      if (!isRecord(variable)) throw new InvalidInputError(vpath, "expected {scale, weight}");
      numerical[feature] = { scale: expectNumber(variable.scale, `${vpath}.scale`) };
      if (variable.weight !== undefined)
        (numerical[feature] as NumericalVariable).weight = expectNumber(variable.weight, `${vpath}.weight`);
    }
    const categorical = all.Categorical_Variables ?? {};
    if (!isRecord(categorical)) throw new InvalidInputError(`${path}.All_Weights.Categorical_Variables`, "expected an object");
    const weights: AllWeights = {
      Categorical_Variables: categorical as AllWeights["Categorical_Variables"],
      Numerical_Variables: numerical,
    };
    if (all.Bias_Weight !== undefined) weights.Bias_Weight = expectNumber(all.Bias_Weight, `${path}.All_Weights.Bias_Weight`);
    if (all.CurveFit_Weights !== undefined) {
      if (!Array.isArray(all.CurveFit_Weights))
        throw new InvalidInputError(`${path}.All_Weights.CurveFit_Weights`, "expected an array");
      weights.CurveFit_Weights = all.CurveFit_Weights.map((p, i) =>
        expectNumber(p, `${path}.All_Weights.CurveFit_Weights[${i}]`),
      );
    }
    result[component] = { All_Weights: weights };
  }
  return result;
}

/** Top-level keys beside the components in Kepler >= 0.7.12's struct form. */
const DESCRIPTIVE_KEYS = new Set(["model_name", "machine_spec", "mae"]);

/**
 * weight.json text as the reference's `<model>.json` holds it: the component map only. Text without
 * descriptive keys is returned unchanged (byte for byte).
 */
export function componentWeightsText(text: string): string {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  if (!Object.keys(parsed).some((key) => DESCRIPTIVE_KEYS.has(key))) return text;
  return JSON.stringify(Object.fromEntries(Object.entries(parsed).filter(([key]) => !DESCRIPTIVE_KEYS.has(key))));
}

/**
 * The text of a file served as `.../<model>/weight.json`: `model_name` first, then the components.
 * Kepler 0.7.12-0.9 derive the trainer from a weight URL's basename unless the file names its model;
 * "weight" names no predictor and Kepler panics for curve-fit models (issue 12). The sibling
 * `<model>.json` needs no name: its basename is the model name.
 */
export function namedWeightsText(weights: WeightJson | string, modelName: string): string {
  const components = typeof weights === "string" ? (JSON.parse(componentWeightsText(weights)) as WeightJson) : weights;
  return JSON.stringify({ model_name: modelName, ...components });
}
