// Gradient boosting of regression trees with exact best splits, as scikit-learn 1.2.1's
// GradientBoostingRegressor(loss="squared_error", n_estimators, max_depth, learning_rate,
// criterion="friedman_mse", subsample=1.0, min_samples_split=2, min_samples_leaf=1,
// random_state) used by the reference's GradientBoostingRegressorTrainer (Friedman 2001, "Greedy
// function approximation").
//
// - init = mean(y) summed as numpy does (DummyRegressor's mean: pairwise sums in blocks of 8192);
//   each stage fits a tree to the residuals y - raw and adds learning_rate * leaf
//   mean to raw (for squared error sklearn keeps the tree's leaf means as they are).
// - Features are float32, as sklearn converts X (see regression-tree.ts).
// - The trees are grown as sklearn's DecisionTreeRegressor (boosting-tree.ts), including its random
//   feature order per node: random_state seeds numpy's MT19937 (RandomState(seed)) and each tree's
//   splitter draws its rand_r state with randint(0, 0x7FFFFFFF), as tree.fit does with the shared
//   RandomState. So ties between features are broken as sklearn breaks them with the same seed.
//
// Speed: every feature column is sorted once per fit (radix sort). For each tree, every feature keeps
// (value, row, residual) triplets in that order, partitioned so each node's rows form one segment
// in ascending order of the feature (a stable partition after each split, like the presorted
// layout of SLIQ, Mehta et al. 1996). Scanning a node is then a sequential pass with no sorting,
// and a tree costs O(n * features * depth).
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";
import { BoostingTreeGrower } from "./boosting-tree";
import { MT_STATE_BYTES, mtRandint, mtSeed } from "./random";
import { sortColumnF32, sortScratchBytes, toFloat32Columns, NODE_WIDTH } from "./regression-tree";

export const MAX_TREE_DEPTH: i32 = 14;
const RAND_R_MAX: u32 = 0x7fffffff;

/**
 * Fits the ensemble on the rows x cols column-major matrix at xPtr and targets at yPtr, with
 * sklearn's random_state = randomState. Writes nTrees trees of (2^(maxDepth+1) - 1) node-record slots
 * each to nodesPtr (records as in regression-tree.ts, each tree's nodes from slot 0 in sklearn's
 * preorder), the node count of each tree to nodeCountsPtr (float64) and init (the mean of y) to initPtr.
 * Errors: ERR_TOO_FEW_ROWS for fewer than 2 rows, ERR_NOT_FINITE for NaN/inf in x or y,
 * ERR_DIMENSION for a non-positive tree count or a depth outside 1..MAX_TREE_DEPTH.
 */
export function fitGradientBoosting(
  xPtr: usize,
  rows: i32,
  cols: i32,
  yPtr: usize,
  nTrees: i32,
  maxDepth: i32,
  learningRate: f64,
  randomState: u32,
  nodesPtr: usize,
  nodeCountsPtr: usize,
  initPtr: usize,
): i32 {
  if (cols < 1 || nTrees < 1 || maxDepth < 1 || maxDepth > MAX_TREE_DEPTH) return ERR_DIMENSION;
  if (rows < 2) return ERR_TOO_FEW_ROWS;
  if (!isFinite(learningRate)) return ERR_NOT_FINITE;
  const n = <usize>rows;
  const p = <usize>cols;
  for (let i: usize = 0; i < n; i++) if (!isFinite(load<f64>(yPtr + (i << 3)))) return ERR_NOT_FINITE;
  const xf = heap.alloc((n * p) << 2);
  if (!toFloat32Columns(xPtr, n, p, xf)) {
    heap.free(xf);
    return ERR_NOT_FINITE;
  }
  const sortedVal = heap.alloc((n * p) << 2);
  const sortedIdx = heap.alloc((n * p) << 2);
  {
    const scratch = heap.alloc(sortScratchBytes(n));
    for (let j: usize = 0; j < p; j++) {
      sortColumnF32(xf + ((j * n) << 2), n, sortedVal + ((j * n) << 2), sortedIdx + ((j * n) << 2), scratch);
    }
    heap.free(scratch);
  }
  heap.free(xf);

  const m = <usize>((1 << (maxDepth + 1)) - 1);
  const raw = heap.alloc(n << 3);
  const residual = heap.alloc(n << 3);
  const grower = new BoostingTreeGrower(n, p, maxDepth);
  const rng = heap.alloc(MT_STATE_BYTES);
  mtSeed(rng, randomState);

  let sumY: f64 = 0;
  for (let i: usize = 0; i < n; i += NUMPY_BUFFER) sumY += pairwiseSum(yPtr + (i << 3), min<usize>(NUMPY_BUFFER, n - i));
  const init = sumY / <f64>n;
  store<f64>(initPtr, init);
  for (let i: usize = 0; i < n; i++) store<f64>(raw + (i << 3), init);

  for (let t = 0; t < nTrees; t++) {
    let s: f64 = 0;
    let sq: f64 = 0;
    for (let i: usize = 0; i < n; i++) {
      const r = load<f64>(yPtr + (i << 3)) - load<f64>(raw + (i << 3));
      store<f64>(residual + (i << 3), r);
      s += r;
      sq += r * r;
    }
    memory.copy(grower.wVal, sortedVal, (n * p) << 2);
    memory.copy(grower.wIdx, sortedIdx, (n * p) << 2);
    for (let q: usize = 0; q < n * p; q++) {
      store<f64>(grower.wRes + (q << 3), load<f64>(residual + ((<usize>load<u32>(grower.wIdx + (q << 2))) << 3)));
    }
    const treeNodes = nodesPtr + ((<usize>t * m * <usize>NODE_WIDTH) << 3);
    const randSeed = mtRandint(rng, 0, RAND_R_MAX);
    const nodeCount = grower.grow(treeNodes, raw, learningRate, randSeed, s, sq);
    store<f64>(nodeCountsPtr + ((<usize>t) << 3), <f64>nodeCount);
  }

  grower.free();
  heap.free(rng);
  heap.free(sortedVal);
  heap.free(sortedIdx);
  heap.free(raw);
  heap.free(residual);
  return OK;
}

// numpy's add.reduce on a contiguous float64 array: buffers of 8192 values, each summed by
// pairwise_sum (8 running sums over blocks of up to 128 values, halves split at multiples of 8).
const NUMPY_BUFFER: usize = 8192;

function pairwiseSum(ptr: usize, n: usize): f64 {
  if (n < 8) {
    let res: f64 = 0;
    for (let i: usize = 0; i < n; i++) res += load<f64>(ptr + (i << 3));
    return res;
  }
  if (n <= 128) {
    let r0 = load<f64>(ptr);
    let r1 = load<f64>(ptr, 8);
    let r2 = load<f64>(ptr, 16);
    let r3 = load<f64>(ptr, 24);
    let r4 = load<f64>(ptr, 32);
    let r5 = load<f64>(ptr, 40);
    let r6 = load<f64>(ptr, 48);
    let r7 = load<f64>(ptr, 56);
    let i: usize = 8;
    for (; i < n - (n % 8); i += 8) {
      const at = ptr + (i << 3);
      r0 += load<f64>(at);
      r1 += load<f64>(at, 8);
      r2 += load<f64>(at, 16);
      r3 += load<f64>(at, 24);
      r4 += load<f64>(at, 32);
      r5 += load<f64>(at, 40);
      r6 += load<f64>(at, 48);
      r7 += load<f64>(at, 56);
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < n; i++) res += load<f64>(ptr + (i << 3));
    return res;
  }
  let half = n / 2;
  half -= half % 8;
  return pairwiseSum(ptr, half) + pairwiseSum(ptr + (half << 3), n - half);
}
