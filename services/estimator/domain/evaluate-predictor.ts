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

/**
 * Predicts every row of `table` with `predictor` (which reads `features`) and returns the errors of each
 * component the table measures, in the predictor's component order. FailedPreconditionError when the table
 * has no rows or lacks a column the model reads.
 */
export function evaluatePredictor(predictor: Predictor, table: DataTable, features: readonly string[]): ComponentError[] {
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
    .map((component) => {
      const measured = getColumn(table, powerColumn(component));
      const predicted = powers.get(component)!;
      return {
        component,
        maeWatts: meanAbsoluteError(measured, predicted),
        mapePercent: meanAbsolutePercentageError(measured, predicted),
        maxErrorWatts: maxAbsoluteError(measured, predicted),
      };
    });
}
