// The explicit map from trainer name to implementation (no class lookup by building import paths).
import { InvalidInputError, NotImplementedError } from "../../domain/errors.js";
import { REFERENCE_TRAINER_NAMES, type ReferenceTrainerName, type TrainerImplementation } from "./trainer.js";
import { exponentialRegressionTrainer, logarithmicRegressionTrainer, logisticRegressionTrainer } from "./trainers/curve-fit.js";
import { gradientBoostingRegressorTrainer } from "./trainers/gradient-boosting-regressor.js";
import { kNeighborsRegressorTrainer } from "./trainers/k-neighbors-regressor.js";
import { linearRegressionTrainer } from "./trainers/linear-regression.js";
import { polynomialRegressionTrainer } from "./trainers/polynomial-regression.js";
import { sgdRegressorTrainer } from "./trainers/sgd-regressor.js";
import { svrRegressorTrainer } from "./trainers/svr-regressor.js";
import { xgboostFitTrainer } from "./trainers/xgboost-fit.js";

const IMPLEMENTED: ReadonlyMap<ReferenceTrainerName, TrainerImplementation> = new Map(
  [
    polynomialRegressionTrainer,
    gradientBoostingRegressorTrainer,
    kNeighborsRegressorTrainer,
    linearRegressionTrainer,
    svrRegressorTrainer,
    xgboostFitTrainer,
    sgdRegressorTrainer,
    logarithmicRegressionTrainer,
    logisticRegressionTrainer,
    exponentialRegressionTrainer,
  ].map((trainer) => [trainer.name, trainer]),
);

/** The implemented trainers, in the reference's default order. */
export function listTrainers(): TrainerImplementation[] {
  return REFERENCE_TRAINER_NAMES.flatMap((name) => {
    const trainer = IMPLEMENTED.get(name);
    return trainer === undefined ? [] : [trainer];
  });
}

/**
 * Resolves requested names (exact, case-sensitive: the reference's substring matching is a bug).
 * Unknown names are INVALID_ARGUMENT listing the known ones; reference trainers we do not have yet
 * (GradientBoosting, Xgboost, SVR) are UNIMPLEMENTED. Duplicates are dropped.
 */
export function resolveTrainers(names: readonly string[], field = "trainer_names"): TrainerImplementation[] {
  if (names.length === 0)
    throw new InvalidInputError(
      field,
      `name at least one trainer (known: ${listTrainers()
        .map((t) => t.name)
        .join(", ")})`,
    );
  const resolved: TrainerImplementation[] = [];
  names.forEach((name, index) => {
    const trainer = IMPLEMENTED.get(name as ReferenceTrainerName);
    if (trainer !== undefined) {
      if (!resolved.includes(trainer)) resolved.push(trainer);
      return;
    }
    if ((REFERENCE_TRAINER_NAMES as readonly string[]).includes(name)) {
      throw new NotImplementedError(
        `${field}[${index}]: trainer ${name} is not implemented yet (implemented: ${listTrainers()
          .map((t) => t.name)
          .join(", ")})`,
      );
    }
    throw new InvalidInputError(
      `${field}[${index}]`,
      `unknown trainer "${name}" (known: ${listTrainers()
        .map((t) => t.name)
        .join(", ")})`,
    );
  });
  return resolved;
}
