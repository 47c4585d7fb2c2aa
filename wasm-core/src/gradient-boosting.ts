import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { type RegressionTree, treesFromNodeBlock } from "./regression-tree.js";
import { assertKernelOk } from "./status.js";

/** Options of fitGradientBoosting; the defaults are the reference's GradientBoostingRegressor. */
export interface FitGradientBoostingOptions {
  nEstimators?: number;
  maxDepth?: number;
  learningRate?: number;
  /**
   * sklearn's random_state (an integer seed, 0..2^32-1; default 0): the trees visit features in the
   * random order sklearn draws from RandomState(randomState), so ties between features break alike.
   */
  randomState?: number;
}

/** A fitted sklearn-style GradientBoostingRegressor: init + learningRate * sum of tree outputs. */
export interface GradientBoostingModel {
  init: number;
  learningRate: number;
  /** Leaf values are the residual means (not yet multiplied by learningRate), as sklearn stores them. */
  trees: RegressionTree[];
}

/** Largest max_depth the kernel accepts. */
export const MAX_GRADIENT_BOOSTING_DEPTH = 14;

/**
 * sklearn GradientBoostingRegressor(squared_error, friedman_mse, subsample 1, min_samples_split 2,
 * min_samples_leaf 1, random_state) fitted in wasm with exact splits and sklearn's seeded feature order. Throws WasmKernelError (tooFewRows) for fewer
 * than 2 rows, (notFinite) for NaN/inf, (dimension) for a bad tree count or depth.
 */
export function fitGradientBoosting(
  x: Matrix | WasmMatrix,
  y: ArrayLike<number> | F64Buffer,
  options: FitGradientBoostingOptions = {},
): GradientBoostingModel {
  assertMatrix(x, "fitGradientBoosting x");
  if (y.length !== x.rows) throw new RangeError(`fitGradientBoosting: ${x.rows} rows but ${y.length} targets`);
  const nEstimators = options.nEstimators ?? 100;
  const maxDepth = options.maxDepth ?? 3;
  const learningRate = options.learningRate ?? 0.1;
  const randomState = options.randomState ?? 0;
  if (!Number.isInteger(nEstimators) || nEstimators < 1)
    throw new RangeError(`fitGradientBoosting: nEstimators must be a positive integer, got ${nEstimators}`);
  if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > MAX_GRADIENT_BOOSTING_DEPTH) {
    throw new RangeError(
      `fitGradientBoosting: maxDepth must be an integer in 1..${MAX_GRADIENT_BOOSTING_DEPTH}, got ${maxDepth}`,
    );
  }
  if (!Number.isInteger(randomState) || randomState < 0 || randomState > 0xffffffff)
    throw new RangeError(`fitGradientBoosting: randomState must be an integer in [0, 2^32), got ${randomState}`);
  const slots = 2 ** (maxDepth + 1) - 1;
  return withResidentMatrix(x, "fitGradientBoosting x", (m) =>
    withResidentVector(y, (yb) => {
      const nodes = F64Buffer.alloc(nEstimators * slots * 5);
      const counts = F64Buffer.alloc(nEstimators);
      const init = F64Buffer.alloc(1);
      return withBuffers([nodes, counts, init], () => {
        assertKernelOk(
          "fitGradientBoosting",
          core().fitGradientBoosting(
            m.buffer.ptr,
            m.rows,
            m.cols,
            yb.ptr,
            nEstimators,
            maxDepth,
            learningRate,
            randomState,
            nodes.ptr,
            counts.ptr,
            init.ptr,
          ),
        );
        return { init: init.view()[0]!, learningRate, trees: treesFromNodeBlock(nodes.view(), slots, counts.toArray()) };
      });
    }),
  );
}
