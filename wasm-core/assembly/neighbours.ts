// k-nearest-neighbour regression, as scikit-learn's KNeighborsRegressor(n_neighbors=6) used by the
// reference's KNeighborsRegressorTrainer: uniform weights (the prediction is the mean of the k
// neighbours' targets, summed nearest first), Euclidean distance.
//
// The search is exact. Squared distances are summed feature by feature in column order, the same
// order sklearn's KD-tree uses; neighbours are ordered by (distance, training-row index), so a tie
// goes to the earlier training row whatever the search order.
// - Brute force (algorithm 0) scans every training row, two rows per f64x2 lane pair.
// - KD-tree (algorithm 1, the default; Bentley 1975, with sklearn's choice of the widest-spread
//   dimension and a median split, bounding boxes per node): the training rows are permuted into
//   leaf order and stored column-major, so a leaf is scanned two rows at a time with f64x2 like the
//   brute force. A subtree is skipped only when its box is strictly farther than the current k-th
//   distance; box distances are never above the distances of the points inside (rounding is
//   monotonic), so both algorithms return the same neighbours.
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";

export const KNN_BRUTE: i32 = 0;
export const KNN_KD_TREE: i32 = 1;

const LEAF_SIZE: i32 = 32;

// per-call search context (the kernel is single-threaded and not re-entrant)
let gP: usize = 0;
let gN: usize = 0;
let gK: i32 = 0;
let gData: usize = 0; // column-major, rows in leaf order (tree) or original order (brute)
let gOrig: usize = 0; // original row index per stored row (i32), tree only
let gQuery: usize = 0; // p values
let gBestD: usize = 0; // k distances, ascending
let gBestI: usize = 0; // k original indices (i32)
// tree nodes: start, end, left, right (i32 each), and box lo/hi (p values each)
let gNodeInfo: usize = 0;
let gNodeBox: usize = 0;
let gNodeCount: i32 = 0;

function worstD(): f64 {
  return load<f64>(gBestD + ((<usize>(gK - 1)) << 3));
}

// Inserts (d, index) into the sorted best list when it beats the current k-th.
function offer(d: f64, index: i32): void {
  const last = gK - 1;
  const wd = load<f64>(gBestD + ((<usize>last) << 3));
  const wi = load<i32>(gBestI + ((<usize>last) << 2));
  if (!(d < wd || (d == wd && index < wi))) return;
  let pos = last;
  while (pos > 0) {
    const pd = load<f64>(gBestD + ((<usize>(pos - 1)) << 3));
    const pi = load<i32>(gBestI + ((<usize>(pos - 1)) << 2));
    if (pd < d || (pd == d && pi < index)) break;
    store<f64>(gBestD + ((<usize>pos) << 3), pd);
    store<i32>(gBestI + ((<usize>pos) << 2), pi);
    pos--;
  }
  store<f64>(gBestD + ((<usize>pos) << 3), d);
  store<i32>(gBestI + ((<usize>pos) << 2), index);
}

// Scans stored rows [start, end); orig = 0 means the stored row index is the original one.
function scanRows(start: usize, end: usize, useOrig: bool): void {
  const stride = gN << 3;
  let i = start;
  for (; i + 2 <= end; i += 2) {
    let acc = f64x2.splat(0);
    let col = gData + (i << 3);
    for (let j: usize = 0; j < gP; j++) {
      const diff = f64x2.sub(v128.load(col), f64x2.splat(load<f64>(gQuery + (j << 3))));
      acc = f64x2.add(acc, f64x2.mul(diff, diff));
      col += stride;
    }
    const w = f64x2.splat(worstD());
    if (v128.any_true(f64x2.le(acc, w))) {
      offer(f64x2.extract_lane(acc, 0), useOrig ? load<i32>(gOrig + (i << 2)) : <i32>i);
      offer(f64x2.extract_lane(acc, 1), useOrig ? load<i32>(gOrig + ((i + 1) << 2)) : <i32>(i + 1));
    }
  }
  for (; i < end; i++) {
    let d: f64 = 0;
    for (let j: usize = 0; j < gP; j++) {
      const diff = load<f64>(gData + ((j * gN + i) << 3)) - load<f64>(gQuery + (j << 3));
      d += diff * diff;
    }
    offer(d, useOrig ? load<i32>(gOrig + (i << 2)) : <i32>i);
  }
}

function nodeInt(node: i32, field: i32): i32 {
  return load<i32>(gNodeInfo + ((((<usize>node) << 2) + <usize>field) << 2));
}

function boxDistance(node: i32): f64 {
  const lo = gNodeBox + ((<usize>node * gP * 2) << 3);
  const hi = lo + (gP << 3);
  let d: f64 = 0;
  for (let j: usize = 0; j < gP; j++) {
    const q = load<f64>(gQuery + (j << 3));
    const l = load<f64>(lo + (j << 3));
    const h = load<f64>(hi + (j << 3));
    let gap: f64 = 0;
    if (q < l) gap = l - q;
    else if (q > h) gap = q - h;
    d += gap * gap;
  }
  return d;
}

function searchNode(node: i32, bound: f64): void {
  if (bound > worstD()) return;
  const left = nodeInt(node, 2);
  if (left < 0) {
    scanRows(<usize>nodeInt(node, 0), <usize>nodeInt(node, 1), true);
    return;
  }
  const right = nodeInt(node, 3);
  const dl = boxDistance(left);
  const dr = boxDistance(right);
  if (dl <= dr) {
    searchNode(left, dl);
    searchNode(right, dr);
  } else {
    searchNode(right, dr);
    searchNode(left, dl);
  }
}

// --- tree construction over a permutation of rows of the original column-major x ---

function valueAt(x: usize, rows: usize, row: i32, dim: usize): f64 {
  return load<f64>(x + ((dim * rows + <usize>row) << 3));
}

// Hoare-style quickselect: places the k-th smallest (by x[dim]) of perm[lo, hi) at position k.
function selectKth(x: usize, rows: usize, perm: usize, lo: i32, hi: i32, k: i32, dim: usize): void {
  let left = lo;
  let right = hi - 1;
  while (right > left) {
    const mid = left + ((right - left) >> 1);
    const pivot = valueAt(x, rows, load<i32>(perm + ((<usize>mid) << 2)), dim);
    let i = left;
    let j = right;
    while (i <= j) {
      while (valueAt(x, rows, load<i32>(perm + ((<usize>i) << 2)), dim) < pivot) i++;
      while (valueAt(x, rows, load<i32>(perm + ((<usize>j) << 2)), dim) > pivot) j--;
      if (i <= j) {
        const a = perm + ((<usize>i) << 2);
        const b = perm + ((<usize>j) << 2);
        const t = load<i32>(a);
        store<i32>(a, load<i32>(b));
        store<i32>(b, t);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

function buildNode(x: usize, rows: usize, perm: usize, start: i32, end: i32): i32 {
  const node = gNodeCount++;
  const info = gNodeInfo + (((<usize>node) << 2) << 2);
  store<i32>(info, start);
  store<i32>(info + 4, end);
  const lo = gNodeBox + ((<usize>node * gP * 2) << 3);
  const hi = lo + (gP << 3);
  let widest: usize = 0;
  let spread: f64 = -1;
  for (let j: usize = 0; j < gP; j++) {
    let l: f64 = Infinity;
    let h: f64 = -Infinity;
    for (let r = start; r < end; r++) {
      const v = valueAt(x, rows, load<i32>(perm + ((<usize>r) << 2)), j);
      l = Math.min(l, v);
      h = Math.max(h, v);
    }
    store<f64>(lo + (j << 3), l);
    store<f64>(hi + (j << 3), h);
    if (h - l > spread) {
      spread = h - l;
      widest = j;
    }
  }
  if (end - start <= LEAF_SIZE || spread <= 0) {
    store<i32>(info + 8, -1);
    store<i32>(info + 12, -1);
    return node;
  }
  const mid = start + ((end - start) >> 1);
  selectKth(x, rows, perm, start, end, mid, widest);
  const left = buildNode(x, rows, perm, start, mid);
  const right = buildNode(x, rows, perm, mid, end);
  store<i32>(info + 8, left);
  store<i32>(info + 12, right);
  return node;
}

/**
 * Predicts the mean target of the k nearest training rows for each query row. x: rows x p
 * (column-major), y: rows targets, queries: qRows x p (column-major), out: qRows values.
 */
export function predictKnn(
  xPtr: usize,
  rows: i32,
  p: i32,
  yPtr: usize,
  k: i32,
  queriesPtr: usize,
  qRows: i32,
  algorithm: i32,
  outPtr: usize,
): i32 {
  if (rows < 0 || p < 0 || qRows < 0 || k < 1 || (algorithm != KNN_BRUTE && algorithm != KNN_KD_TREE)) return ERR_DIMENSION;
  if (rows < k) return ERR_TOO_FEW_ROWS;
  const n = <usize>rows;
  const pp = <usize>p;
  for (let i: usize = 0; i < n * pp; i++) if (!isFinite(load<f64>(xPtr + (i << 3)))) return ERR_NOT_FINITE;
  for (let i: usize = 0; i < n; i++) if (!isFinite(load<f64>(yPtr + (i << 3)))) return ERR_NOT_FINITE;
  for (let i: usize = 0; i < <usize>qRows * pp; i++) if (!isFinite(load<f64>(queriesPtr + (i << 3)))) return ERR_NOT_FINITE;
  gP = pp;
  gN = n;
  gK = k;
  gQuery = heap.alloc(max<usize>(pp, 1) << 3);
  gBestD = heap.alloc((<usize>k) << 3);
  gBestI = heap.alloc((<usize>k) << 2);
  let perm: usize = 0;
  if (algorithm == KNN_KD_TREE) {
    perm = heap.alloc(n << 2);
    for (let i: usize = 0; i < n; i++) store<i32>(perm + (i << 2), <i32>i);
    const maxNodes = <usize>(2 * (rows / (LEAF_SIZE / 2) + 1) + 1);
    gNodeInfo = heap.alloc(maxNodes << 4);
    gNodeBox = heap.alloc((maxNodes * pp * 2 + 1) << 3);
    gNodeCount = 0;
    buildNode(xPtr, n, perm, 0, rows);
    gData = heap.alloc(max<usize>(n * pp, 1) << 3);
    for (let j: usize = 0; j < pp; j++) {
      for (let i: usize = 0; i < n; i++) {
        store<f64>(gData + ((j * n + i) << 3), load<f64>(xPtr + ((j * n + <usize>load<i32>(perm + (i << 2))) << 3)));
      }
    }
    gOrig = perm;
  } else {
    gData = xPtr;
  }
  const nq = <usize>qRows;
  for (let qi: usize = 0; qi < nq; qi++) {
    for (let j: usize = 0; j < pp; j++) store<f64>(gQuery + (j << 3), load<f64>(queriesPtr + ((j * nq + qi) << 3)));
    for (let i: usize = 0; i < <usize>k; i++) {
      store<f64>(gBestD + (i << 3), Infinity);
      store<i32>(gBestI + (i << 2), i32.MAX_VALUE);
    }
    if (algorithm == KNN_KD_TREE) searchNode(0, boxDistance(0));
    else scanRows(0, n, false);
    let sum: f64 = 0;
    for (let i: usize = 0; i < <usize>k; i++) sum += load<f64>(yPtr + ((<usize>load<i32>(gBestI + (i << 2))) << 3));
    store<f64>(outPtr + (qi << 3), sum / <f64>k);
  }
  if (algorithm == KNN_KD_TREE) {
    heap.free(gData);
    heap.free(gNodeBox);
    heap.free(gNodeInfo);
    heap.free(perm);
  }
  heap.free(gBestI);
  heap.free(gBestD);
  heap.free(gQuery);
  gData = 0;
  gOrig = 0;
  return OK;
}
