// Regression trees shared by the boosting kernels: the float32 feature copy and per-feature presort
// used while fitting, and the prediction of a tree ensemble.
//
// scikit-learn's trees (and XGBoost's) compare float32 features: GradientBoostingRegressor converts
// X to float32 before fitting and predicting, and a sample goes left when `float32(x) <= threshold`
// with a float64 threshold. We do the same, so a threshold halfway between two float32 values sends
// every training row to the side it was counted on.
//
// A tree ensemble travels as one block of node records, 5 float64 each:
//   [feature, threshold, left, right, value]
// feature is the column index, or -2 for a leaf (sklearn's TREE_UNDEFINED; a leaf's children are
// -1 and its threshold -2, as sklearn's tree_ arrays); left/right are node indices relative to the tree's
// first node and must be greater than the node's own index (so traversal always ends); value is the
// leaf output. prediction = base + sum over trees of scale * (the leaf value reached), added tree by tree as
// sklearn's predict_stages does.
import { ERR_DIMENSION, ERR_NOT_FINITE, OK } from "./status";

export const NODE_WIDTH: i32 = 5;
export const LEAF: i32 = -2;

// Float32 view of a float64 column-major matrix, column-major. Returns 0 when a value is not finite.
export function toFloat32Columns(xPtr: usize, n: usize, cols: usize, outPtr: usize): bool {
  const total = n * cols;
  for (let k: usize = 0; k < total; k++) {
    const v = load<f64>(xPtr + (k << 3));
    if (!isFinite(v)) return false;
    store<f32>(outPtr + (k << 2), <f32>v);
  }
  return true;
}

// Order-preserving map of a float32 to an unsigned key (IEEE bits, sign flipped or all bits negated).
function sortKey(v: f32): u32 {
  const bits = reinterpret<u32>(v);
  return bits >> 31 != 0 ? ~bits : bits | 0x80000000;
}

// Stable LSD radix sort (3 passes of 11 bits) of one float32 column: writes the sorted values and
// the row index of each (ties keep ascending row order). scratch needs 4 * n * 4 bytes + 2048 * 4.
export function sortColumnF32(colPtr: usize, n: usize, outValPtr: usize, outIdxPtr: usize, scratch: usize): void {
  const keysA = scratch;
  const keysB = keysA + (n << 2);
  const idxA = keysB + (n << 2);
  const idxB = idxA + (n << 2);
  const counts = idxB + (n << 2);
  for (let i: usize = 0; i < n; i++) {
    store<u32>(keysA + (i << 2), sortKey(load<f32>(colPtr + (i << 2))));
    store<u32>(idxA + (i << 2), <u32>i);
  }
  let srcK = keysA;
  let srcI = idxA;
  let dstK = keysB;
  let dstI = idxB;
  for (let pass: u32 = 0; pass < 3; pass++) {
    const shift = pass * 11;
    memory.fill(counts, 0, 2048 << 2);
    for (let i: usize = 0; i < n; i++) {
      const d = (load<u32>(srcK + (i << 2)) >> shift) & 2047;
      const at = counts + ((<usize>d) << 2);
      store<u32>(at, load<u32>(at) + 1);
    }
    let sum: u32 = 0;
    for (let d: usize = 0; d < 2048; d++) {
      const at = counts + (d << 2);
      const c = load<u32>(at);
      store<u32>(at, sum);
      sum += c;
    }
    for (let i: usize = 0; i < n; i++) {
      const key = load<u32>(srcK + (i << 2));
      const at = counts + ((<usize>((key >> shift) & 2047)) << 2);
      const pos = <usize>load<u32>(at);
      store<u32>(at, <u32>(pos + 1));
      store<u32>(dstK + (pos << 2), key);
      store<u32>(dstI + (pos << 2), load<u32>(srcI + (i << 2)));
    }
    const tk = srcK;
    srcK = dstK;
    dstK = tk;
    const ti = srcI;
    srcI = dstI;
    dstI = ti;
  }
  for (let i: usize = 0; i < n; i++) {
    const row = load<u32>(srcI + (i << 2));
    store<u32>(outIdxPtr + (i << 2), row);
    store<f32>(outValPtr + (i << 2), load<f32>(colPtr + ((<usize>row) << 2)));
  }
}

/** Bytes of scratch sortColumnF32 needs for n values. */
export function sortScratchBytes(n: usize): usize {
  return (n << 4) + (2048 << 2);
}

// sklearn's split threshold between two consecutive distinct float32 values a < b: a/2 + b/2 in
// float64, or a when that rounds up to b (sklearn's _splitter.pyx).
export function midpoint(a: f64, b: f64): f64 {
  const t = a / 2.0 + b / 2.0;
  return t == b || !isFinite(t) ? a : t;
}

// Writes one node record.
export function writeNode(nodesPtr: usize, node: i32, feature: i32, threshold: f64, left: i32, right: i32, value: f64): void {
  const at = nodesPtr + ((<usize>node * <usize>NODE_WIDTH) << 3);
  store<f64>(at, <f64>feature);
  store<f64>(at, threshold, 8);
  store<f64>(at, <f64>left, 16);
  store<f64>(at, <f64>right, 24);
  store<f64>(at, value, 32);
}

/**
 * Predicts `rows` rows of the column-major matrix at xPtr with a tree ensemble: nodesPtr holds the
 * node records of all trees back to back, treeStartsPtr the first node of each tree (nTrees + 1
 * float64 values, the last one = total node count). out = base + sum over trees of scale * leaf value.
 * Malformed trees (a feature >= cols, a child outside the tree or not after its parent) give
 * ERR_DIMENSION before anything is predicted; a non-finite feature value gives ERR_NOT_FINITE.
 *
 * Speed: the nodes are first compacted (leaves loop to themselves), then each tree walks a block of
 * rows in lockstep for exactly the tree's depth, so the rows' independent walks overlap in the CPU.
 */
export function predictTreeEnsemble(
  xPtr: usize,
  rows: i32,
  cols: i32,
  nodesPtr: usize,
  treeStartsPtr: usize,
  nTrees: i32,
  base: f64,
  scale: f64,
  outPtr: usize,
): i32 {
  if (rows < 0 || cols < 0 || nTrees < 0) return ERR_DIMENSION;
  const total = nTrees > 0 ? <i32>load<f64>(treeStartsPtr + ((<usize>nTrees) << 3)) : 0;
  if (total < 0) return ERR_DIMENSION;
  const totalU = <usize>total;
  // compact nodes: feature (i32), left, right (absolute, i32), threshold, value; depth per tree
  const cFeat = heap.alloc(max<usize>(4, totalU << 2));
  const cLeft = heap.alloc(max<usize>(4, totalU << 2));
  const cRight = heap.alloc(max<usize>(4, totalU << 2));
  const cThr = heap.alloc(max<usize>(8, totalU << 3));
  const cVal = heap.alloc(max<usize>(8, totalU << 3));
  const cDepth = heap.alloc(max<usize>(4, totalU << 2));
  const treeDepth = heap.alloc(max<usize>(4, (<usize>nTrees) << 2));
  const status = compactTrees(nodesPtr, treeStartsPtr, nTrees, cols, cFeat, cLeft, cRight, cThr, cVal, cDepth, treeDepth);
  heap.free(cDepth);
  const n = <usize>rows;
  const p = <usize>cols;
  let xr: usize = 0;
  let result = status;
  if (status == OK) {
    // row-major float32 copy: one row's features sit together while a tree is walked
    xr = heap.alloc(max<usize>(4, (n * p) << 2));
    for (let j: usize = 0; j < p && result == OK; j++) {
      for (let i: usize = 0; i < n; i++) {
        const v = load<f64>(xPtr + ((j * n + i) << 3));
        if (!isFinite(v)) {
          result = ERR_NOT_FINITE;
          break;
        }
        store<f32>(xr + ((i * p + j) << 2), <f32>v);
      }
    }
  }
  if (result == OK) {
    for (let i: usize = 0; i < n; i++) store<f64>(outPtr + (i << 3), base);
    const cur = heap.alloc(BLOCK << 2);
    for (let t = 0; t < nTrees; t++) {
      const root = <i32>load<f64>(treeStartsPtr + ((<usize>t) << 3));
      const depth = load<i32>(treeDepth + ((<usize>t) << 2));
      for (let i0: usize = 0; i0 < n; i0 += BLOCK) {
        const b1 = min<usize>(BLOCK, n - i0);
        for (let b: usize = 0; b < b1; b++) store<i32>(cur + (b << 2), root);
        for (let step = 0; step < depth; step++) {
          let row = xr + ((i0 * p) << 2);
          for (let b: usize = 0; b < b1; b++) {
            const node = <usize>load<i32>(cur + (b << 2));
            const v = <f64>load<f32>(row + ((<usize>load<i32>(cFeat + (node << 2))) << 2));
            const next = select<i32>(
              load<i32>(cLeft + (node << 2)),
              load<i32>(cRight + (node << 2)),
              v <= load<f64>(cThr + (node << 3)),
            );
            store<i32>(cur + (b << 2), next);
            row += p << 2;
          }
        }
        for (let b: usize = 0; b < b1; b++) {
          const o = outPtr + ((i0 + b) << 3);
          store<f64>(o, load<f64>(o) + scale * load<f64>(cVal + ((<usize>load<i32>(cur + (b << 2))) << 3)));
        }
      }
    }
    heap.free(cur);
  }
  if (xr != 0) heap.free(xr);
  heap.free(cFeat);
  heap.free(cLeft);
  heap.free(cRight);
  heap.free(cThr);
  heap.free(cVal);
  heap.free(treeDepth);
  return result;
}

const BLOCK: usize = 64;

// Checks every tree and writes the compact form; returns OK, ERR_DIMENSION or ERR_NOT_FINITE.
function compactTrees(
  nodesPtr: usize,
  treeStartsPtr: usize,
  nTrees: i32,
  cols: i32,
  cFeat: usize,
  cLeft: usize,
  cRight: usize,
  cThr: usize,
  cVal: usize,
  cDepth: usize,
  treeDepth: usize,
): i32 {
  let previousEnd: i32 = 0;
  for (let t = 0; t < nTrees; t++) {
    const startF = load<f64>(treeStartsPtr + ((<usize>t) << 3));
    const endF = load<f64>(treeStartsPtr + ((<usize>(t + 1)) << 3));
    if (startF != <f64>previousEnd || !(endF > startF) || endF != Math.floor(endF) || endF > 2147483647) return ERR_DIMENSION;
    const start = <i32>startF;
    const end = <i32>endF;
    previousEnd = end;
    const size = <f64>(end - start);
    let deepest: i32 = 0;
    // unreachable nodes are allowed (and never visited): start every depth at 0
    memory.fill(cDepth + ((<usize>start) << 2), 0, (<usize>(end - start)) << 2);
    for (let k = start; k < end; k++) {
      const ku = <usize>k;
      const at = nodesPtr + ((ku * <usize>NODE_WIDTH) << 3);
      const feature = load<f64>(at);
      const threshold = load<f64>(at, 8);
      const value = load<f64>(at, 32);
      const depth = load<i32>(cDepth + (ku << 2));
      if (depth > deepest) deepest = depth;
      store<f64>(cVal + (ku << 3), value);
      if (feature == <f64>LEAF) {
        if (!isFinite(value)) return ERR_NOT_FINITE;
        store<i32>(cFeat + (ku << 2), 0);
        store<i32>(cLeft + (ku << 2), k);
        store<i32>(cRight + (ku << 2), k);
        store<f64>(cThr + (ku << 3), Infinity);
        continue;
      }
      if (!(feature >= 0 && feature < <f64>cols) || feature != Math.floor(feature)) return ERR_DIMENSION;
      const left = load<f64>(at, 16);
      const right = load<f64>(at, 24);
      const local = <f64>(k - start);
      if (!(left > local && left < size && right > local && right < size)) return ERR_DIMENSION;
      if (left != Math.floor(left) || right != Math.floor(right)) return ERR_DIMENSION;
      if (isNaN(threshold)) return ERR_NOT_FINITE;
      const l = start + <i32>left;
      const r = start + <i32>right;
      store<i32>(cFeat + (ku << 2), <i32>feature);
      store<i32>(cLeft + (ku << 2), l);
      store<i32>(cRight + (ku << 2), r);
      store<f64>(cThr + (ku << 3), threshold);
      store<i32>(cDepth + ((<usize>l) << 2), depth + 1);
      store<i32>(cDepth + ((<usize>r) << 2), depth + 1);
    }
    store<i32>(treeDepth + ((<usize>t) << 2), deepest);
  }
  return OK;
}
