import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { predictTreeEnsemble, type RegressionTree, treesFromNodeBlock } from "./regression-tree.js";
import { assertKernelOk } from "./status.js";

/** Options of fitHistogramBoosting; the defaults are XGBRegressor's as the reference uses it. */
export interface FitHistogramBoostingOptions {
  rounds?: number;
  maxDepth?: number;
  eta?: number;
  lambda?: number;
  minChildWeight?: number;
  gamma?: number;
  maxBins?: number;
  /** Continue boosting this model: its trees stay, new ones fit the residuals of its predictions. */
  previous?: HistogramBoostingModel;
}

/** A second-order boosted ensemble: baseScore + sum of tree outputs (leaf values already include eta). */
export interface HistogramBoostingModel {
  baseScore: number;
  trees: RegressionTree[];
}

/** Largest max_depth the kernel accepts. */
export const MAX_HISTOGRAM_BOOSTING_DEPTH = 14;

/**
 * XGBoost-style boosting (squared error, hist split finding) fitted in wasm. With `previous`, the new
 * trees are appended to its trees (the reference's `fit(X, y, xgb_model=model)`). Throws
 * WasmKernelError (tooFewRows) for fewer than 2 rows, (notFinite) for NaN/inf, (dimension) for bad
 * parameters.
 */
export function fitHistogramBoosting(
  x: Matrix | WasmMatrix,
  y: ArrayLike<number> | F64Buffer,
  options: FitHistogramBoostingOptions = {},
): HistogramBoostingModel {
  assertMatrix(x, "fitHistogramBoosting x");
  if (y.length !== x.rows) throw new RangeError(`fitHistogramBoosting: ${x.rows} rows but ${y.length} targets`);
  const rounds = options.rounds ?? 100;
  const maxDepth = options.maxDepth ?? 6;
  const maxBins = options.maxBins ?? 256;
  if (!Number.isInteger(rounds) || rounds < 1)
    throw new RangeError(`fitHistogramBoosting: rounds must be a positive integer, got ${rounds}`);
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > MAX_HISTOGRAM_BOOSTING_DEPTH) {
    throw new RangeError(
      `fitHistogramBoosting: maxDepth must be an integer in 1..${MAX_HISTOGRAM_BOOSTING_DEPTH}, got ${maxDepth}`,
    );
  }
  if (!Number.isInteger(maxBins) || maxBins < 2 || maxBins > 256)
    throw new RangeError(`fitHistogramBoosting: maxBins must be an integer in 2..256, got ${maxBins}`);
  const params = [
    rounds,
    maxDepth,
    options.eta ?? 0.1,
    options.lambda ?? 1,
    options.minChildWeight ?? 1,
    options.gamma ?? 0,
    maxBins,
  ];
  const slots = 2 ** (maxDepth + 1) - 1;
  const previous = options.previous;
  return withResidentMatrix(x, "fitHistogramBoosting x", (m) => {
    const init =
      previous === undefined
        ? undefined
        : F64Buffer.from(predictTreeEnsemble({ base: previous.baseScore, scale: 1, trees: previous.trees }, m));
    return withResidentVector(y, (yb) => {
      const paramBuffer = F64Buffer.from(params);
      const nodes = F64Buffer.alloc(rounds * slots * 5);
      const counts = F64Buffer.alloc(rounds);
      const base = F64Buffer.from([previous?.baseScore ?? Number.NaN]);
      return withBuffers([paramBuffer, nodes, counts, base, ...(init ? [init] : [])], () => {
        assertKernelOk(
          "fitHistogramBoosting",
          core().fitHistogramBoosting(
            m.buffer.ptr,
            m.rows,
            m.cols,
            yb.ptr,
            init?.ptr ?? 0,
            paramBuffer.ptr,
            nodes.ptr,
            counts.ptr,
            base.ptr,
          ),
        );
        const trees = treesFromNodeBlock(nodes.view(), slots, counts.toArray());
        return { baseScore: base.view()[0]!, trees: previous === undefined ? trees : [...previous.trees, ...trees] };
      });
    });
  });
}
