// Loads fixtures/trainer-goldens.json: inputs and scikit-learn 1.2.1 / scipy 1.10.1 outputs written by
// fixtures/make-trainer-goldens.py (Debian's python3-sklearn); the tests never run Python.
import { readFileSync } from "node:fs";
import type { Matrix } from "../src/index.js";

interface LinearGolden {
  coef: number[];
  intercept: number;
  pred: number[];
}

interface SgdGolden {
  coef: number[];
  intercept: number;
  n_iter: number;
  t: number;
}

interface CurveGolden {
  y: number[];
  p0: number[];
  popt: number[];
  pred: number[];
  nfev: number;
  ier: number;
}

/** The parsed golden file. */
export interface TrainerGoldens {
  permutation: Record<"seed0_n10" | "seed42_n187" | "seed4294967295_n5", number[]>;
  train_test_split_n40_seed7: { train: number[]; test: number[] };
  linear: {
    rows: number;
    cols: number;
    x: number[];
    y: number[];
    ols: LinearGolden;
    positive: LinearGolden;
    polynomial: LinearGolden;
  };
  sgd: {
    rows: number;
    cols: number;
    x: number[];
    y: number[];
    fits: Record<string, SgdGolden>;
    ols: { coef: number[]; intercept: number };
  };
  knn: { rows: number; cols: number; x: number[]; y: number[]; queryRows: number; queries: number[]; pred: number[] };
  curves: { x: number[]; fits: Record<"logarithmic" | "exponential" | "logistic", CurveGolden> };
}

/** The golden file, parsed. */
export const goldens = JSON.parse(
  readFileSync(new URL("./fixtures/trainer-goldens.json", import.meta.url), "utf8"),
) as TrainerGoldens;

/** A column-major matrix from golden numbers. */
export function matrixOf(rows: number, cols: number, values: number[]): Matrix {
  return { rows, cols, values: Float64Array.from(values) };
}

/** max |a - b| / max(1, |b|) over two equally long arrays. */
export function maxRelativeDifference(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  if (actual.length !== expected.length) throw new Error(`length ${actual.length} != ${expected.length}`);
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    worst = Math.max(worst, Math.abs(actual[i]! - expected[i]!) / Math.max(1, Math.abs(expected[i]!)));
  }
  return worst;
}
