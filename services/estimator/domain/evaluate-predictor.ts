// How well a model predicts a recorded table (the reference CLI's `estimate` command, spec §9.4): the
// model runs on every row and each component's prediction is compared with the measured
// `<component>_power` column. All arithmetic runs in wasm-core.
import { type DataTable, findColumn, getColumn } from "../../domain/data-table.js";
import { powerColumn } from "../../domain/energy-sources.js";
import { FailedPreconditionError } from "../../domain/errors.js";
import {
  createMatrix,
  matrixToWasm,
  maxAbsoluteError,
  meanAbsoluteError,
  meanAbsolutePercentageError,
} from "../../../wasm-core/src/index.js";
import type { Predictor } from "./predictor.js";

/** The errors of one component over every row of the table. */
export interface ComponentError {
  readonly component: string;
  /** Mean |measured - predicted|, watts. */
  readonly maeWatts: number;
  /** The reference's MAPE over rows with measured power > 0, percent; -1 when there is none. */
  readonly mapePercent: number;
  /** The largest |measured - predicted| of any row, watts. */
  readonly maxErrorWatts: number;
}

/** One component's measured and predicted power on every row of a table. */
export interface ComponentPredictions {
  readonly component: string;
  readonly measured: Float64Array;
  readonly predicted: Float64Array;
}

/**
 * Predicts every row of `table` with `predictor` (which reads `features`) and returns, per component the
 * table measures, the measured and predicted power in the predictor's component order.
 * FailedPreconditionError when the table has no rows or lacks a column the model reads.
 */
export function predictTable(predictor: Predictor, table: DataTable, features: readonly string[]): ComponentPredictions[] {
  if (table.rowCount === 0) throw new FailedPreconditionError("the table has no rows to evaluate on");
  const columns = predictor.inputFeatures(features);
  const missing = columns.filter((column) => findColumn(table, column) < 0);
  if (missing.length > 0) throw new FailedPreconditionError(`the table lacks the model's features [${missing.join(", ")}]`);
  const rows = table.rowCount;
  const values = new Float64Array(rows * columns.length);
  columns.forEach((column, j) => {
    values.set(getColumn(table, column), j * rows);
  });
  const x = matrixToWasm(createMatrix(rows, columns.length, values));
  let powers: Map<string, Float64Array>;
  try {
    powers = predictor.predict(x, columns, new Map());
  } finally {
    x.buffer.free();
  }
  return predictor.components
    .filter((component) => powers.has(component) && findColumn(table, powerColumn(component)) >= 0)
    .map((component) => ({
      component,
      measured: Float64Array.from(getColumn(table, powerColumn(component))),
      predicted: powers.get(component)!,
    }));
}

/** MAE, MAPE and max error of one component's predictions (wasm-core). */
export function componentError({ component, measured, predicted }: ComponentPredictions): ComponentError {
  return {
    component,
    maeWatts: meanAbsoluteError(measured, predicted),
    mapePercent: meanAbsolutePercentageError(measured, predicted),
    maxErrorWatts: maxAbsoluteError(measured, predicted),
  };
}

/**
 * The errors of each component `table` measures when `predictor` predicts every row (see predictTable).
 */
export function evaluatePredictor(predictor: Predictor, table: DataTable, features: readonly string[]): ComponentError[] {
  return predictTable(predictor, table, features).map(componentError);
}
