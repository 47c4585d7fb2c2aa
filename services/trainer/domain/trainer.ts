// What every trainer implements. A trainer fits one component model on MaxAbs-scaled features and
// predicts with it; the training procedure (train-models.ts) does scaling, splitting, metrics and
// publishing once for all trainers. Fitted models are our JSON model files (services/models), so a
// fitted model, a checkpoint and an archived component are the same object.
import type { Matrix } from "../../../wasm-core/src/index.js";
import type { ComponentModelFile, ComponentWeights, FeatureEngineeringFile } from "../../models/index.js";

/**
 * The trainers the reference defines, in its default order (no_weight + weight_support). Informative
 * only: the trainer set is the registry's (trainer-registry.ts), and names are not limited to these.
 */
export const REFERENCE_TRAINER_NAMES = [
  "PolynomialRegressionTrainer",
  "GradientBoostingRegressorTrainer",
  "KNeighborsRegressorTrainer",
  "LinearRegressionTrainer",
  "SVRRegressorTrainer",
  "XgboostFitTrainer",
  "SGDRegressorTrainer",
  "LogarithmicRegressionTrainer",
  "LogisticRegressionTrainer",
  "ExponentialRegressionTrainer",
] as const;

export type ReferenceTrainerName = (typeof REFERENCE_TRAINER_NAMES)[number];

/** What a trainer knows about the component it fits. */
export interface FitContext {
  component: string;
  /** The model's input features, in order (the columns of x). */
  features: readonly string[];
  /** Column of the main feature (reference main_feature(fg, component)); used by curve fits only. */
  mainFeatureIndex: number;
  /** Seed for stochastic trainers (SGD's shuffling). */
  seed: number;
  /** This trainer's checkpointed model to continue from (only passed when continuesFromCheckpoint). */
  previous?: ComponentModelFile;
}

/** A trainer that fails for a reason the user can act on: reported as a failed trainer, never thrown to the caller. */
export class TrainerFitError extends Error {
  override readonly name = "TrainerFitError";
}

/**
 * One trainer's definition: everything the service, the archive and ListTrainers need to know about it.
 * A trainer is added by writing one of these and registering it (trainer-registry.ts, docs/adding-a-trainer.md).
 */
export interface TrainerImplementation {
  /** `<Name>Trainer`-style name: letters and digits, unique (model names are `<name>_<node_type>`). */
  readonly name: string;
  /** metadata.json `model_class`. */
  readonly modelClass: "scikit" | "curvefit" | "xgboost";
  /** True when the trainer writes weight.json (Linear, SGD and the curve fits). */
  readonly weightCapable: boolean;
  /** True when a checkpoint is continued (SGD's warm start); the others refit from scratch. */
  readonly continuesFromCheckpoint: boolean;
  /** One sentence on the model and its hyperparameters. */
  readonly description: string;
  /** The fixed hyperparameters, for documentation and ListTrainers' description (optional). */
  readonly hyperparameters?: Readonly<Record<string, number | string | boolean>>;
  /** Trainer-level feature-engineering files listed in metadata `fe_files` (the polynomial expansion). */
  featureEngineering(featureCount: number): FeatureEngineeringFile[];
  /**
   * Fits one component on the scaled training rows; the result is archived as that component's model
   * file. Throws TrainerFitError (or a wasm kernel error) when it cannot.
   */
  fit(x: Matrix, y: Float64Array, context: FitContext): ComponentModelFile;
  /** Predicts watts for scaled rows. */
  predict(model: ComponentModelFile, x: Matrix): Float64Array;
  /** Kepler weight.json entry for this component (weight-capable trainers only). */
  toWeights?(model: ComponentModelFile, features: readonly string[], scale: Float64Array): ComponentWeights;
}

/** Narrows a model file to the kind a trainer expects (a checkpoint of another kind is a bug or a foreign file). */
export function expectModelKind<K extends ComponentModelFile["kind"]>(
  model: ComponentModelFile,
  kind: K,
  trainer: string,
): Extract<ComponentModelFile, { kind: K }> {
  if (model.kind !== kind) throw new TrainerFitError(`${trainer} cannot use a "${model.kind}" model (expected "${kind}")`);
  return model as Extract<ComponentModelFile, { kind: K }>;
}
