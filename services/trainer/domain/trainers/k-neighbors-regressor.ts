// KNeighborsRegressorTrainer: sklearn KNeighborsRegressor(n_neighbors=6): the mean of the 6 nearest
// training rows (uniform weights, Euclidean distance on the scaled features). Fitting stores the rows.
import { type Matrix, predictKnn } from "../../../../wasm-core/src/index.js";
import type { ComponentModelFile } from "../../../models/index.js";
import { expectModelKind, TrainerFitError, type TrainerImplementation } from "../trainer.js";

const NAME = "KNeighborsRegressorTrainer";
const K_NEIGHBORS = 6;

export const kNeighborsRegressorTrainer: TrainerImplementation = {
  name: NAME,
  modelClass: "scikit",
  weightCapable: false,
  continuesFromCheckpoint: false,
  description: "Mean of the 6 nearest training rows (uniform weights, Euclidean distance).",
  featureEngineering: () => [],
  fit(x: Matrix, y: Float64Array): ComponentModelFile {
    if (x.rows < K_NEIGHBORS) {
      // sklearn: "Expected n_neighbors <= n_samples_fit".
      throw new TrainerFitError(`needs at least ${K_NEIGHBORS} training rows for ${K_NEIGHBORS} neighbours, got ${x.rows}`);
    }
    return {
      kind: "k_neighbors",
      format_version: 1,
      n_neighbors: K_NEIGHBORS,
      weights: "uniform",
      metric: "euclidean",
      fit_x_columns: Array.from({ length: x.cols }, (_, j) => Array.from(x.values.subarray(j * x.rows, (j + 1) * x.rows))),
      fit_y: Array.from(y),
    };
  },
  predict(model: ComponentModelFile, x: Matrix): Float64Array {
    const m = expectModelKind(model, "k_neighbors", NAME);
    const rows = m.fit_y.length;
    const values = new Float64Array(rows * m.fit_x_columns.length);
    m.fit_x_columns.forEach((column, j) => {
      values.set(column, j * rows);
    });
    return predictKnn({ x: { rows, cols: m.fit_x_columns.length, values }, y: Float64Array.from(m.fit_y), k: m.n_neighbors }, x);
  },
};
