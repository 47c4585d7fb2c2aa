// Loads fixtures/tree-svr-goldens.json: inputs and scikit-learn 1.2.1 outputs (GradientBoostingRegressor,
// SVR) written by fixtures/make-tree-svr-goldens.py (Debian's python3-sklearn); the tests never run Python.
import { readFileSync } from "node:fs";
import type { Matrix } from "../src/index.js";

/** One data set of the golden file and sklearn's fits on it. */
export interface TreeSvrCase {
  rows: number;
  cols: number;
  x: number[];
  y: number[];
  queries: number;
  q: number[];
  gbr: { init: number; pred: number[]; train_pred: number[]; first_tree_leaves: number; first_tree_nodes: number };
  svr: { pred: number[]; intercept: number; gamma: number; n_support: number; support: number[]; dual_coef: number[] };
}

/** The golden file, parsed. */
export const treeSvrGoldens = JSON.parse(
  readFileSync(new URL("./fixtures/tree-svr-goldens.json", import.meta.url), "utf8"),
) as Record<"smooth" | "duplicates" | "constant", TreeSvrCase>;

/** Training rows and query rows of a case as column-major matrices. */
export function caseMatrices(c: TreeSvrCase): { x: Matrix; q: Matrix } {
  return {
    x: { rows: c.rows, cols: c.cols, values: Float64Array.from(c.x) },
    q: { rows: c.queries, cols: c.cols, values: Float64Array.from(c.q) },
  };
}
