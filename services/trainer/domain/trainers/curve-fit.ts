// LogarithmicRegressionTrainer, ExponentialRegressionTrainer and LogisticRegressionTrainer: a
// Levenberg-Marquardt least-squares fit (scipy curve_fit, maxfev 30000) of one formula on the main
// feature only (reference curvefit.py, spec §5.2).
import { fitCurve, type Matrix, predictCurve, vectorStats } from "../../../../wasm-core/src/index.js";
import { type ComponentModelFile, CURVE_FORMULAS, type CurveFunction, createCurveFitWeights } from "../../../models/index.js";
import { expectModelKind, type FitContext, TrainerFitError, type TrainerImplementation } from "../trainer.js";
import { constantCurve, curveStartingPoint } from "./curve-fit-start.js";

const MAX_EVALUATIONS = 30_000;

function column(x: Matrix, index: number): Float64Array {
  return x.values.subarray(index * x.rows, (index + 1) * x.rows);
}

function createCurveFitTrainer(name: string, kind: CurveFunction, description: string): TrainerImplementation {
  const parameterCount = kind === "logistic" ? 4 : 3;
  return {
    name,
    modelClass: "curvefit",
    weightCapable: true,
    continuesFromCheckpoint: false,
    description,
    featureEngineering: () => [],
    fit(x: Matrix, y: Float64Array, context: FitContext): ComponentModelFile {
      const feature = context.features[context.mainFeatureIndex] ?? "";
      const model = (parameters: number[]): ComponentModelFile => ({
        kind: "curve_fit",
        format_version: 1,
        function: kind,
        formula: CURVE_FORMULAS[kind],
        feature,
        feature_index: context.mainFeatureIndex,
        parameters,
      });
      if (x.rows < parameterCount) {
        // scipy's curve_fit refuses more parameters than points ("Improper input").
        throw new TrainerFitError(
          `needs at least ${parameterCount} training rows for ${parameterCount} parameters, got ${x.rows}`,
        );
      }
      const stats = vectorStats(y);
      if (stats.max === stats.min) return model(constantCurve(kind, stats.min));
      const start = curveStartingPoint(kind, stats);
      if (!start.every(Number.isFinite)) throw new TrainerFitError(`starting point [${start.join(", ")}] is not finite`);
      const fitted = fitCurve(kind, column(x, context.mainFeatureIndex), y, start, { maxEvaluations: MAX_EVALUATIONS });
      if (!fitted.converged) throw new TrainerFitError(`${kind} fit did not converge: ${fitted.reason ?? "no reason given"}`);
      const parameters = Array.from(fitted.parameters);
      if (!parameters.every(Number.isFinite))
        throw new TrainerFitError(`${kind} fit gave non-finite parameters [${parameters.join(", ")}]`);
      return model(parameters);
    },
    predict(model: ComponentModelFile, x: Matrix): Float64Array {
      const m = expectModelKind(model, "curve_fit", name);
      return predictCurve(m.function, m.parameters, column(x, m.feature_index));
    },
    toWeights(model, features, scale) {
      const m = expectModelKind(model, "curve_fit", name);
      return createCurveFitWeights(features, scale, m.parameters);
    },
  };
}

export const logarithmicRegressionTrainer = createCurveFitTrainer(
  "LogarithmicRegressionTrainer",
  "logarithmic",
  "y = a*ln(b*x+1) + c on the main feature, Levenberg-Marquardt from p0 = [max-min, 1, min].",
);
export const exponentialRegressionTrainer = createCurveFitTrainer(
  "ExponentialRegressionTrainer",
  "exponential",
  "y = a*exp(b*x) + c on the main feature, Levenberg-Marquardt from p0 = [(max-min)//e, 1, min-a].",
);
export const logisticRegressionTrainer = createCurveFitTrainer(
  "LogisticRegressionTrainer",
  "logistic",
  "y = A/(1+exp(-k*(x-x0))) + off on the main feature, Levenberg-Marquardt from p0 = [max-min, 0.5, A//std, min].",
);
