// Gradient boosting of regression trees with exact best splits, as scikit-learn's
// GradientBoostingRegressor(loss="squared_error", n_estimators, max_depth, learning_rate,
// criterion="friedman_mse", subsample=1.0, min_samples_split=2, min_samples_leaf=1) used by the
// reference's GradientBoostingRegressorTrainer (Friedman 2001, "Greedy function approximation").
//
// - init = mean(y); each stage fits a tree to the residuals y - raw and adds learning_rate * leaf
//   mean to raw (for squared error sklearn keeps the tree's leaf means as they are).
// - Features are float32, as sklearn converts X (see regression-tree.ts).
// - Split search as sklearn's BestSplitter: per node and feature, samples in ascending feature order;
//   a candidate sits between consecutive values x[p-1] < x[p] when x[p] > x[p-1] + 1e-7
//   (FEATURE_THRESHOLD), left = the first p samples; its score is FriedmanMSE's proxy
//   (n_r * sum_l - n_l * sum_r)^2 / (n_l * n_r); the best is the first strictly greater one;
//   threshold = x[p-1]/2 + x[p]/2 (x[p-1] if that rounds to x[p]).
// - A node is a leaf when depth = max_depth, it has fewer than 2 samples, its impurity
//   (sum r^2 / n - mean^2) is <= DBL_EPSILON, or no candidate exists (all features constant).
// - Deviation: sklearn visits features in a random order drawn from random_state and keeps the
//   first of equally good splits; we visit them in column order (0, 1, ...). Only exact ties differ.
//
// Speed: every feature column is sorted once per fit (radix sort). For each tree, every feature keeps
// (value, row, residual) triplets in that order, partitioned so each node's rows form one segment
// in ascending order of the feature (a stable partition after each split, like the presorted
// layout of SLIQ, Mehta et al. 1996). Scanning a node is then a sequential pass with no sorting,
// and a tree costs O(n * features * depth).
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";
import { LEAF, midpoint, sortColumnF32, sortScratchBytes, toFloat32Columns, writeNode, NODE_WIDTH } from "./regression-tree";

const FEATURE_THRESHOLD: f64 = 1e-7;
const EPSILON: f64 = 2.220446049250313e-16;
export const MAX_TREE_DEPTH: i32 = 14;

/**
 * Fits the ensemble on the rows x cols column-major matrix at xPtr and targets at yPtr.
 * Writes nTrees trees of (2^(maxDepth+1) - 1) node-record slots each to nodesPtr (records as in
 * regression-tree.ts, each tree's nodes from slot 0 in breadth-first order), the node count of each
 * tree to nodeCountsPtr (float64) and init (the mean of y) to initPtr.
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
  // per feature: values, rows and residuals, each node's rows one sorted segment
  const wVal = heap.alloc((n * p) << 2);
  const wIdx = heap.alloc((n * p) << 2);
  const wRes = heap.alloc((n * p) << 3);
  const tVal = heap.alloc(n << 2);
  const tIdx = heap.alloc(n << 2);
  const tRes = heap.alloc(n << 3);
  const goLeft = heap.alloc(n);
  // per node: segment, sample count, sum and sum of squares of the residuals, chosen split
  const segStart = heap.alloc(m << 2);
  const nodeN = heap.alloc(m << 2);
  const nodeSum = heap.alloc(m << 3);
  const nodeSq = heap.alloc(m << 3);
  const splitFeature = heap.alloc(m << 2);
  const parentOf = heap.alloc(m << 2);

  let sumY: f64 = 0;
  for (let i: usize = 0; i < n; i++) sumY += load<f64>(yPtr + (i << 3));
  const init = sumY / <f64>n;
  store<f64>(initPtr, init);
  for (let i: usize = 0; i < n; i++) store<f64>(raw + (i << 3), init);

  for (let t = 0; t < nTrees; t++) {
    const treeNodes = nodesPtr + ((<usize>t * m * <usize>NODE_WIDTH) << 3);
    let s: f64 = 0;
    let sq: f64 = 0;
    for (let i: usize = 0; i < n; i++) {
      const r = load<f64>(yPtr + (i << 3)) - load<f64>(raw + (i << 3));
      store<f64>(residual + (i << 3), r);
      s += r;
      sq += r * r;
    }
    memory.copy(wVal, sortedVal, (n * p) << 2);
    memory.copy(wIdx, sortedIdx, (n * p) << 2);
    for (let q: usize = 0; q < n * p; q++) {
      store<f64>(wRes + (q << 3), load<f64>(residual + ((<usize>load<u32>(wIdx + (q << 2))) << 3)));
    }
    store<i32>(segStart, 0);
    store<i32>(nodeN, rows);
    store<f64>(nodeSum, s);
    store<f64>(nodeSq, sq);
    let nodeCount: i32 = 1;
    let levelStart: i32 = 0;
    let levelEnd: i32 = 1;
    for (let depth = 0; depth <= maxDepth; depth++) {
      const nextStart = nodeCount;
      for (let k = levelStart; k < levelEnd; k++) {
        const ku = <usize>k;
        const start = <usize>load<i32>(segStart + (ku << 2));
        const count = load<i32>(nodeN + (ku << 2));
        const cN = <f64>count;
        const total = load<f64>(nodeSum + (ku << 3));
        const mean = total / cN;
        const impurity = load<f64>(nodeSq + (ku << 3)) / cN - mean * mean;
        let feature: i32 = -1;
        let bestCount: i32 = 0;
        let threshold: f64 = 0;
        if (depth < maxDepth && count >= 2 && impurity > EPSILON) {
          let best: f64 = -Infinity;
          const end = start + <usize>count;
          for (let j: usize = 0; j < p; j++) {
            const val = wVal + ((j * n) << 2);
            const res = wRes + ((j * n) << 3);
            let last = <f64>load<f32>(val + (start << 2));
            let sL = load<f64>(res + (start << 3));
            for (let q = start + 1; q < end; q++) {
              const v = <f64>load<f32>(val + (q << 2));
              if (v > last + FEATURE_THRESHOLD) {
                const cL = <f64>(q - start);
                const cR = cN - cL;
                const diff = cR * sL - cL * (total - sL);
                const proxy = (diff * diff) / (cL * cR);
                if (proxy > best) {
                  best = proxy;
                  feature = <i32>j;
                  bestCount = <i32>(q - start);
                  threshold = midpoint(last, v);
                }
              }
              sL += load<f64>(res + (q << 3));
              last = v;
            }
          }
        }
        if (feature < 0) {
          writeNode(treeNodes, k, LEAF, -2, -1, -1, mean);
          continue;
        }
        const l = nodeCount;
        nodeCount += 2;
        writeNode(treeNodes, k, feature, threshold, l, l + 1, mean);
        const lu = <usize>l;
        store<i32>(splitFeature + (ku << 2), feature);
        // children: the first bestCount rows in the split feature's order go left
        const f = <usize>feature;
        const mid = start + <usize>bestCount;
        const end = start + <usize>count;
        const idxF = wIdx + ((f * n) << 2);
        const resF = wRes + ((f * n) << 3);
        let sLeft: f64 = 0;
        let qLeft: f64 = 0;
        let sRight: f64 = 0;
        let qRight: f64 = 0;
        for (let q = start; q < mid; q++) {
          store<u8>(goLeft + <usize>load<u32>(idxF + (q << 2)), 1);
          const r = load<f64>(resF + (q << 3));
          sLeft += r;
          qLeft += r * r;
        }
        for (let q = mid; q < end; q++) {
          store<u8>(goLeft + <usize>load<u32>(idxF + (q << 2)), 0);
          const r = load<f64>(resF + (q << 3));
          sRight += r;
          qRight += r * r;
        }
        store<i32>(parentOf + (lu << 2), k);
        store<i32>(parentOf + ((lu + 1) << 2), k);
        store<i32>(segStart + (lu << 2), <i32>start);
        store<i32>(nodeN + (lu << 2), bestCount);
        store<f64>(nodeSum + (lu << 3), sLeft);
        store<f64>(nodeSq + (lu << 3), qLeft);
        store<i32>(segStart + ((lu + 1) << 2), <i32>mid);
        store<i32>(nodeN + ((lu + 1) << 2), count - bestCount);
        store<f64>(nodeSum + ((lu + 1) << 3), sRight);
        store<f64>(nodeSq + ((lu + 1) << 3), qRight);
        if (depth + 1 >= maxDepth) continue; // children are leaves: their rows need no order
        for (let j: usize = 0; j < p; j++) {
          if (j == f) continue;
          const val = wVal + ((j * n) << 2);
          const idx = wIdx + ((j * n) << 2);
          const res = wRes + ((j * n) << 3);
          let w = start;
          let o: usize = 0;
          for (let q = start; q < end; q++) {
            const i = load<u32>(idx + (q << 2));
            const v = load<f32>(val + (q << 2));
            const r = load<f64>(res + (q << 3));
            if (load<u8>(goLeft + <usize>i) != 0) {
              store<u32>(idx + (w << 2), i);
              store<f32>(val + (w << 2), v);
              store<f64>(res + (w << 3), r);
              w++;
            } else {
              store<u32>(tIdx + (o << 2), i);
              store<f32>(tVal + (o << 2), v);
              store<f64>(tRes + (o << 3), r);
              o++;
            }
          }
          memory.copy(idx + (w << 2), tIdx, o << 2);
          memory.copy(val + (w << 2), tVal, o << 2);
          memory.copy(res + (w << 3), tRes, o << 3);
        }
      }
      if (nodeCount == nextStart) break;
      levelStart = nextStart;
      levelEnd = nodeCount;
    }
    store<f64>(nodeCountsPtr + ((<usize>t) << 3), <f64>nodeCount);
    // add learning_rate * leaf mean to the rows of every leaf (a leaf's rows are its segment in the
    // order of any feature that was partitioned down to it: the leaf's parent's split feature)
    for (let k = 0; k < nodeCount; k++) {
      const ku = <usize>k;
      const at = treeNodes + ((ku * <usize>NODE_WIDTH) << 3);
      if (load<f64>(at) != <f64>LEAF) continue;
      const value = learningRate * load<f64>(at, 32);
      const start = <usize>load<i32>(segStart + (ku << 2));
      const end = start + <usize>load<i32>(nodeN + (ku << 2));
      const f = k == 0 ? 0 : <usize>load<i32>(splitFeature + ((<usize>load<i32>(parentOf + (ku << 2))) << 2));
      const idx = wIdx + ((f * n) << 2);
      for (let q = start; q < end; q++) {
        const o = raw + ((<usize>load<u32>(idx + (q << 2))) << 3);
        store<f64>(o, load<f64>(o) + value);
      }
    }
  }

  heap.free(sortedVal);
  heap.free(sortedIdx);
  heap.free(raw);
  heap.free(residual);
  heap.free(wVal);
  heap.free(wIdx);
  heap.free(wRes);
  heap.free(tVal);
  heap.free(tIdx);
  heap.free(tRes);
  heap.free(goLeft);
  heap.free(segStart);
  heap.free(nodeN);
  heap.free(nodeSum);
  heap.free(nodeSq);
  heap.free(splitFeature);
  heap.free(parentOf);
  return OK;
}
