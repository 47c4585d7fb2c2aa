// The trainers this project ships, in the reference's default order (ListTrainers and "all trainers"
// keep it). The only list of built-in trainers: a user's own trainer registers itself with
// registerTrainer instead (docs/adding-a-trainer.md).
import type { TrainerImplementation } from "./trainer.js";
import { exponentialRegressionTrainer, logarithmicRegressionTrainer, logisticRegressionTrainer } from "./trainers/curve-fit.js";
import { gradientBoostingRegressorTrainer } from "./trainers/gradient-boosting-regressor.js";
import { kNeighborsRegressorTrainer } from "./trainers/k-neighbors-regressor.js";
import { linearRegressionTrainer } from "./trainers/linear-regression.js";
import { polynomialRegressionTrainer } from "./trainers/polynomial-regression.js";
import { sgdRegressorTrainer } from "./trainers/sgd-regressor.js";
import { svrRegressorTrainer } from "./trainers/svr-regressor.js";
import { xgboostFitTrainer } from "./trainers/xgboost-fit.js";

export const BUILTIN_TRAINERS: readonly TrainerImplementation[] = [
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
];
