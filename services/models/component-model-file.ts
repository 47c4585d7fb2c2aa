// Our documented JSON files for fitted component models and feature-engineering steps, readable
// without Python (the reference pickles sklearn objects: `<component>.pkl`, `scaler.pkl`,
// `poly_scaler.pkl`). Format reference: docs/trainers.md "Model files".
import { InvalidInputError } from "../domain/errors.js";
import { parseTreeModelFile, type TreeModelFile } from "./tree-model-files.js";

/** y = intercept + sum coefficients_i * x_i on scaled features (LinearRegression(positive=True)). */
export interface LinearModelFile {
  kind: "linear";
  format_version: 1;
  coefficients: number[];
  intercept: number;
}

/** OLS on the degree-2 expansion (sklearn PolynomialFeatures order, bias column first). */
export interface PolynomialModelFile {
  kind: "polynomial";
  format_version: 1;
  degree: 2;
  /** One coefficient per expanded column, bias column included (its coefficient is 0, as sklearn's). */
  coefficients: number[];
  intercept: number;
}

/** SGDRegressor state: the linear weights plus what a warm start needs. */
export interface SgdModelFile {
  kind: "sgd";
  format_version: 1;
  coefficients: number[];
  intercept: number;
  /** sklearn's t_: the update count the invscaling learning rate continues from. */
  t: number;
  epochs: number;
  converged: boolean;
}

/** KNeighborsRegressor: the scaled training rows themselves. */
export interface KNeighborsModelFile {
  kind: "k_neighbors";
  format_version: 1;
  n_neighbors: number;
  weights: "uniform";
  metric: "euclidean";
  /** Training features, one array per feature (column-major), already scaled. */
  fit_x_columns: number[][];
  fit_y: number[];
}

/** The reference's three curve-fit formulas. */
export type CurveFunction = "logarithmic" | "exponential" | "logistic";

/** A curve fit on one scaled feature. */
export interface CurveFitModelFile {
  kind: "curve_fit";
  format_version: 1;
  function: CurveFunction;
  /** `a*ln(b*x+1)+c`, `a*exp(b*x)+c` or `A/(1+exp(-k*(x-x0)))+off`, for reading without code. */
  formula: string;
  feature: string;
  feature_index: number;
  /** popt: [a, b, c] or [A, x0, k, off]. */
  parameters: number[];
}

/** Any component model file (tree ensembles and SVR: tree-model-files.ts). */
export type ComponentModelFile =
  LinearModelFile | PolynomialModelFile | SgdModelFile | KNeighborsModelFile | CurveFitModelFile | TreeModelFile;

/** scaler.json: MaxAbsScaler, x / scale per feature (scale 1 for an all-zero feature). */
export interface MaxAbsScalerFile {
  kind: "max_abs_scaler";
  format_version: 1;
  features: string[];
  scale: number[];
}

/** poly_scaler.json: the degree-2 expansion step of PolynomialRegressionTrainer. */
export interface PolynomialFeaturesFile {
  kind: "polynomial_features";
  format_version: 1;
  degree: 2;
  include_bias: true;
  n_features_in: number;
}

/** File names used in the archive. */
export const SCALER_FILE = "scaler.json";
export const POLYNOMIAL_FEATURES_FILE = "poly_scaler.json";

/** The component model file name, `<component>.json`. */
export function componentModelFileName(component: string): string {
  return `${component}.json`;
}

export const CURVE_FORMULAS: Record<CurveFunction, string> = {
  logarithmic: "a*ln(b*x+1)+c",
  exponential: "a*exp(b*x)+c",
  logistic: "A/(1+exp(-k*(x-x0)))+off",
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numbers(value: unknown, field: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "number" && Number.isFinite(v))) {
    throw new InvalidInputError(field, "expected an array of finite numbers");
  }
  return value as number[];
}

function finite(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new InvalidInputError(field, "expected a finite number");
  return value;
}

/** Parses and checks a component model file (a checkpoint holds the same object). */
export function parseComponentModelFile(value: unknown, field = "model"): ComponentModelFile {
  if (!isRecord(value)) throw new InvalidInputError(field, "expected an object");
  if (value.format_version !== 1)
    throw new InvalidInputError(`${field}.format_version`, `unsupported version ${String(value.format_version)}`);
  switch (value.kind) {
    case "linear":
      return {
        kind: "linear",
        format_version: 1,
        coefficients: numbers(value.coefficients, `${field}.coefficients`),
        intercept: finite(value.intercept, `${field}.intercept`),
      };
    case "polynomial":
      return {
        kind: "polynomial",
        format_version: 1,
        degree: 2,
        coefficients: numbers(value.coefficients, `${field}.coefficients`),
        intercept: finite(value.intercept, `${field}.intercept`),
      };
    case "sgd":
      return {
        kind: "sgd",
        format_version: 1,
        coefficients: numbers(value.coefficients, `${field}.coefficients`),
        intercept: finite(value.intercept, `${field}.intercept`),
        t: finite(value.t, `${field}.t`),
        epochs: finite(value.epochs, `${field}.epochs`),
        converged: value.converged === true,
      };
    case "k_neighbors": {
      if (!Array.isArray(value.fit_x_columns))
        throw new InvalidInputError(`${field}.fit_x_columns`, "expected an array of columns");
      const columns = value.fit_x_columns.map((c, i) => numbers(c, `${field}.fit_x_columns[${i}]`));
      const y = numbers(value.fit_y, `${field}.fit_y`);
      if (columns.some((c) => c.length !== y.length))
        throw new InvalidInputError(`${field}.fit_x_columns`, `every column needs ${y.length} values`);
      return {
        kind: "k_neighbors",
        format_version: 1,
        n_neighbors: finite(value.n_neighbors, `${field}.n_neighbors`),
        weights: "uniform",
        metric: "euclidean",
        fit_x_columns: columns,
        fit_y: y,
      };
    }
    case "curve_fit": {
      const fn = value.function;
      if (fn !== "logarithmic" && fn !== "exponential" && fn !== "logistic") {
        throw new InvalidInputError(`${field}.function`, `unknown curve function ${String(fn)}`);
      }
      const parameters = numbers(value.parameters, `${field}.parameters`);
      if (parameters.length !== (fn === "logistic" ? 4 : 3))
        throw new InvalidInputError(`${field}.parameters`, `${fn} needs ${fn === "logistic" ? 4 : 3} parameters`);
      return {
        kind: "curve_fit",
        format_version: 1,
        function: fn,
        formula: CURVE_FORMULAS[fn],
        feature: String(value.feature ?? ""),
        feature_index: finite(value.feature_index, `${field}.feature_index`),
        parameters,
      };
    }
    case "gradient_boosting":
    case "xgboost_fit":
    case "svr":
      return parseTreeModelFile(value, field);
    default:
      throw new InvalidInputError(`${field}.kind`, `unknown model kind ${String(value.kind)}`);
  }
}

/** Parses scaler.json. */
export function parseMaxAbsScalerFile(value: unknown, field = "scaler"): MaxAbsScalerFile {
  if (!isRecord(value) || value.kind !== "max_abs_scaler") throw new InvalidInputError(field, "expected a max_abs_scaler object");
  if (!Array.isArray(value.features) || !value.features.every((f) => typeof f === "string")) {
    throw new InvalidInputError(`${field}.features`, "expected an array of names");
  }
  const scale = numbers(value.scale, `${field}.scale`);
  if (scale.length !== value.features.length)
    throw new InvalidInputError(`${field}.scale`, `expected ${value.features.length} scales`);
  return { kind: "max_abs_scaler", format_version: 1, features: value.features as string[], scale };
}
