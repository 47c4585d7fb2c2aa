// Second-order gradient boosting with histogram split finding, the algorithm of XGBoost's "hist"
// tree method (Chen & Guestrin 2016, "XGBoost: A Scalable Tree Boosting System"), as the
// reference's XgboostFitTrainer uses xgb.XGBRegressor(n_estimators=100, learning_rate=0.1) with
// XGBoost's defaults: squared error, max_depth 6, lambda 1, min_child_weight 1, gamma 0, 256 bins.
//
// - Gradients for squared error: g = raw - y, h = 1. Base score = mean(y) (or the caller's raw
//   predictions, to continue boosting a model).
// - Bins per feature from the training data's float32 values: with at most maxBins distinct values
//   every value has its own bin; otherwise cuts are placed at the quantiles k * n / maxBins,
//   k = 1..maxBins-1, after the distinct value where the running count reaches each quantile.
//   Cuts lie halfway between consecutive distinct values; a row goes left when
//   float32(x) <= cut, as in regression-tree.ts (XGBoost's sketch uses weighted quantiles and
//   `x < cut`; the difference only moves cut positions within a bin).
// - Split gain = GL^2/(HL+lambda) + GR^2/(HR+lambda) - G^2/(H+lambda), both children need hessian
//   sums >= min_child_weight, a node splits when its best gain > 1e-6 (XGBoost's kRtEps) and
//   >= gamma. Leaf weight = -eta * G / (H + lambda).
// - Trees grow depth-wise (XGBoost's default grow policy). Each node's rows stay contiguous in a row
//   list; the smaller child's histogram is built from its rows, the larger one's is the parent's minus
//   it (f64x2 (g, h) pairs), so a level costs O(rows of the smaller children * features).
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";
import { LEAF, midpoint, sortColumnF32, sortScratchBytes, toFloat32Columns, writeNode, NODE_WIDTH } from "./regression-tree";

const RT_EPS: f64 = 1e-6;
export const MAX_HISTOGRAM_DEPTH: i32 = 14;
const MAX_HISTOGRAM_BYTES: usize = 1 << 30;

// Parameter block layout (float64): rounds, maxDepth, eta, lambda, minChildWeight, gamma, maxBins.
export const HB_PARAMS: i32 = 7;

/**
 * Fits `rounds` trees on the rows x cols column-major matrix at xPtr and targets at yPtr with the
 * parameters at paramsPtr (layout above). initPtr: 0 to start from the mean of y (written to
 * basePtr), or the address of `rows` raw predictions to continue from (basePtr is left alone).
 * Writes each tree's (2^(maxDepth+1) - 1) node-record slots to nodesPtr (leaf values include eta)
 * and node counts to nodeCountsPtr.
 * Errors: ERR_TOO_FEW_ROWS (< 2 rows), ERR_NOT_FINITE (NaN/inf in x, y, init or parameters),
 * ERR_DIMENSION (bad rounds, depth outside 1..MAX_HISTOGRAM_DEPTH, bins outside 2..256, or
 * histograms over 1 GiB).
 */
export function fitHistogramBoosting(
  xPtr: usize,
  rows: i32,
  cols: i32,
  yPtr: usize,
  initPtr: usize,
  paramsPtr: usize,
  nodesPtr: usize,
  nodeCountsPtr: usize,
  basePtr: usize,
): i32 {
  const rounds = <i32>load<f64>(paramsPtr);
  const maxDepth = <i32>load<f64>(paramsPtr, 8);
  const eta = load<f64>(paramsPtr, 16);
  const lambda = load<f64>(paramsPtr, 24);
  const minChildWeight = load<f64>(paramsPtr, 32);
  const gamma = load<f64>(paramsPtr, 40);
  const maxBins = <i32>load<f64>(paramsPtr, 48);
  if (cols < 1 || rounds < 1 || maxDepth < 1 || maxDepth > MAX_HISTOGRAM_DEPTH || maxBins < 2 || maxBins > 256)
    return ERR_DIMENSION;
  if (!isFinite(eta) || !isFinite(lambda) || !isFinite(minChildWeight) || !isFinite(gamma) || lambda < 0) return ERR_NOT_FINITE;
  if (rows < 2) return ERR_TOO_FEW_ROWS;
  const n = <usize>rows;
  const p = <usize>cols;
  const nb = <usize>maxBins;
  const maxNodes = (1 << (maxDepth + 1)) - 1;
  const m = <usize>maxNodes;
  const histBytes = (p * nb) << 4;
  if (histBytes * m > MAX_HISTOGRAM_BYTES) return ERR_DIMENSION;
  for (let i: usize = 0; i < n; i++) {
    if (!isFinite(load<f64>(yPtr + (i << 3)))) return ERR_NOT_FINITE;
    if (initPtr != 0 && !isFinite(load<f64>(initPtr + (i << 3)))) return ERR_NOT_FINITE;
  }
  const xf = heap.alloc((n * p) << 2);
  if (!toFloat32Columns(xPtr, n, p, xf)) {
    heap.free(xf);
    return ERR_NOT_FINITE;
  }

  // quantile cuts and the bin of every value (row-major u8: one row's bins together)
  const cuts = heap.alloc((p * nb) << 3);
  const cutCount = heap.alloc(p << 2);
  const bins = heap.alloc(n * p);
  {
    const sortedVal = heap.alloc(n << 2);
    const sortedIdx = heap.alloc(n << 2);
    const scratch = heap.alloc(sortScratchBytes(n));
    for (let j: usize = 0; j < p; j++) {
      sortColumnF32(xf + ((j * n) << 2), n, sortedVal, sortedIdx, scratch);
      const c = computeCuts(sortedVal, n, nb, cuts + ((j * nb) << 3));
      store<i32>(cutCount + (j << 2), c);
      const jc = cuts + ((j * nb) << 3);
      let b: i32 = 0;
      for (let q: usize = 0; q < n; q++) {
        const v = <f64>load<f32>(sortedVal + (q << 2));
        while (b < c && v > load<f64>(jc + ((<usize>b) << 3))) b++;
        store<u8>(bins + <usize>load<u32>(sortedIdx + (q << 2)) * p + j, <u8>b);
      }
    }
    heap.free(sortedVal);
    heap.free(sortedIdx);
    heap.free(scratch);
  }

  const raw = heap.alloc(n << 3);
  if (initPtr == 0) {
    let sumY: f64 = 0;
    for (let i: usize = 0; i < n; i++) sumY += load<f64>(yPtr + (i << 3));
    const base = sumY / <f64>n;
    store<f64>(basePtr, base);
    for (let i: usize = 0; i < n; i++) store<f64>(raw + (i << 3), base);
  } else {
    memory.copy(raw, initPtr, n << 3);
  }
  const gh = heap.alloc(n << 4);
  const rowList = heap.alloc(n << 2);
  const rowTemp = heap.alloc(n << 2);
  const hist = heap.alloc(histBytes * m);
  const segStart = heap.alloc(m << 2);
  const segEnd = heap.alloc(m << 2);
  const nodeG = heap.alloc(m << 3);
  const nodeH = heap.alloc(m << 3);
  const splitFeature = heap.alloc(m << 2);
  const splitBin = heap.alloc(m << 2);
  const splitGL = heap.alloc(m << 3);
  const splitHL = heap.alloc(m << 3);

  for (let t = 0; t < rounds; t++) {
    const treeNodes = nodesPtr + ((<usize>t * m * <usize>NODE_WIDTH) << 3);
    let gSum: f64 = 0;
    for (let i: usize = 0; i < n; i++) {
      const g = load<f64>(raw + (i << 3)) - load<f64>(yPtr + (i << 3));
      store<f64>(gh + (i << 4), g);
      store<f64>(gh + (i << 4), 1.0, 8);
      store<u32>(rowList + (i << 2), <u32>i);
      gSum += g;
    }
    store<i32>(segStart, 0);
    store<i32>(segEnd, rows);
    store<f64>(nodeG, gSum);
    store<f64>(nodeH, <f64>n);
    buildHistogram(hist, histBytes, bins, p, nb, gh, rowList, 0, n);
    let nodeCount: i32 = 1;
    let levelStart: i32 = 0;
    let levelEnd: i32 = 1;
    for (let depth = 0; depth <= maxDepth; depth++) {
      const nextStart = nodeCount;
      for (let k = levelStart; k < levelEnd; k++) {
        const ku = <usize>k;
        const G = load<f64>(nodeG + (ku << 3));
        const H = load<f64>(nodeH + (ku << 3));
        const weight = G == 0 ? 0 : (-G / (H + lambda)) * eta;
        let found = false;
        if (depth < maxDepth && H >= 2 * minChildWeight) {
          found = bestSplit(
            hist + ku * histBytes,
            p,
            nb,
            cutCount,
            G,
            H,
            lambda,
            minChildWeight,
            gamma,
            splitFeature + (ku << 2),
            splitBin + (ku << 2),
            splitGL + (ku << 3),
            splitHL + (ku << 3),
          );
        }
        if (!found) {
          writeNode(treeNodes, k, LEAF, -2, -1, -1, weight);
          continue;
        }
        const f = <usize>load<i32>(splitFeature + (ku << 2));
        const b = load<i32>(splitBin + (ku << 2));
        const l = nodeCount;
        nodeCount += 2;
        writeNode(treeNodes, k, <i32>f, load<f64>(cuts + ((f * nb + <usize>b) << 3)), l, l + 1, weight);
        // stable partition of the node's rows: bin <= b to the left child
        const start = <usize>load<i32>(segStart + (ku << 2));
        const end = <usize>load<i32>(segEnd + (ku << 2));
        let w = start;
        let r: usize = 0;
        for (let q = start; q < end; q++) {
          const i = load<u32>(rowList + (q << 2));
          if (<i32>load<u8>(bins + <usize>i * p + f) <= b) {
            store<u32>(rowList + (w << 2), i);
            w++;
          } else {
            store<u32>(rowTemp + (r << 2), i);
            r++;
          }
        }
        memory.copy(rowList + (w << 2), rowTemp, r << 2);
        const lu = <usize>l;
        const GL = load<f64>(splitGL + (ku << 3));
        const HL = load<f64>(splitHL + (ku << 3));
        store<i32>(segStart + (lu << 2), <i32>start);
        store<i32>(segEnd + (lu << 2), <i32>w);
        store<i32>(segStart + ((lu + 1) << 2), <i32>w);
        store<i32>(segEnd + ((lu + 1) << 2), <i32>end);
        store<f64>(nodeG + (lu << 3), GL);
        store<f64>(nodeH + (lu << 3), HL);
        store<f64>(nodeG + ((lu + 1) << 3), G - GL);
        store<f64>(nodeH + ((lu + 1) << 3), H - HL);
        if (depth + 1 < maxDepth) {
          // children at the last level become leaves: no histogram needed
          const leftSmaller = w - start <= end - w;
          const small = leftSmaller ? lu : lu + 1;
          const large = leftSmaller ? lu + 1 : lu;
          const s0 = leftSmaller ? start : w;
          const s1 = leftSmaller ? w : end;
          buildHistogram(hist + small * histBytes, histBytes, bins, p, nb, gh, rowList, s0, s1);
          subtractHistogram(hist + ku * histBytes, hist + small * histBytes, hist + large * histBytes, histBytes);
        }
      }
      if (nodeCount == nextStart) break;
      levelStart = nextStart;
      levelEnd = nodeCount;
    }
    store<f64>(nodeCountsPtr + ((<usize>t) << 3), <f64>nodeCount);
    // add each leaf's weight to its rows
    for (let k = 0; k < nodeCount; k++) {
      const ku = <usize>k;
      const at = treeNodes + ((ku * <usize>NODE_WIDTH) << 3);
      if (load<f64>(at) != <f64>LEAF) continue;
      const value = load<f64>(at, 32);
      const end = <usize>load<i32>(segEnd + (ku << 2));
      for (let q = <usize>load<i32>(segStart + (ku << 2)); q < end; q++) {
        const o = raw + ((<usize>load<u32>(rowList + (q << 2))) << 3);
        store<f64>(o, load<f64>(o) + value);
      }
    }
  }

  heap.free(xf);
  heap.free(cuts);
  heap.free(cutCount);
  heap.free(bins);
  heap.free(raw);
  heap.free(gh);
  heap.free(rowList);
  heap.free(rowTemp);
  heap.free(hist);
  heap.free(segStart);
  heap.free(segEnd);
  heap.free(nodeG);
  heap.free(nodeH);
  heap.free(splitFeature);
  heap.free(splitBin);
  heap.free(splitGL);
  heap.free(splitHL);
  return OK;
}

// Cuts for one sorted float32 column (n values) into out; returns their count (<= maxBins - 1).
function computeCuts(sorted: usize, n: usize, maxBins: usize, out: usize): i32 {
  let distinct: usize = 1;
  for (let q: usize = 1; q < n; q++) if (load<f32>(sorted + (q << 2)) != load<f32>(sorted + ((q - 1) << 2))) distinct++;
  let count: i32 = 0;
  if (distinct <= maxBins) {
    for (let q: usize = 1; q < n; q++) {
      const a = load<f32>(sorted + ((q - 1) << 2));
      const b = load<f32>(sorted + (q << 2));
      if (b != a) {
        store<f64>(out + ((<usize>count) << 3), midpoint(<f64>a, <f64>b));
        count++;
      }
    }
    return count;
  }
  let k: usize = 1;
  let q: usize = 0;
  while (q < n && k < maxBins) {
    // the run of equal values starting at q
    const d = load<f32>(sorted + (q << 2));
    let e = q + 1;
    while (e < n && load<f32>(sorted + (e << 2)) == d) e++;
    // e = running count of values <= d
    if (e < n && <f64>e * <f64>maxBins >= <f64>k * <f64>n) {
      store<f64>(out + ((<usize>count) << 3), midpoint(<f64>d, <f64>load<f32>(sorted + (e << 2))));
      count++;
      while (k < maxBins && <f64>k * <f64>n <= <f64>e * <f64>maxBins) k++;
    }
    q = e;
  }
  return count;
}

// hist = sum of (g, h) per feature and bin over rowList[s0..s1).
function buildHistogram(
  hist: usize,
  histBytes: usize,
  bins: usize,
  p: usize,
  nb: usize,
  gh: usize,
  rowList: usize,
  s0: usize,
  s1: usize,
): void {
  memory.fill(hist, 0, histBytes);
  for (let q = s0; q < s1; q++) {
    const i = <usize>load<u32>(rowList + (q << 2));
    const v = v128.load(gh + (i << 4));
    const row = bins + i * p;
    for (let j: usize = 0; j < p; j++) {
      const at = hist + ((j * nb + <usize>load<u8>(row + j)) << 4);
      v128.store(at, f64x2.add(v128.load(at), v));
    }
  }
}

// large = parent - small, pair by pair.
function subtractHistogram(parent: usize, small: usize, large: usize, histBytes: usize): void {
  for (let o: usize = 0; o < histBytes; o += 16) {
    v128.store(large + o, f64x2.sub(v128.load(parent + o), v128.load(small + o)));
  }
}

// Best split of one node from its histogram; false when no split gains more than RT_EPS and gamma.
function bestSplit(
  hist: usize,
  p: usize,
  nb: usize,
  cutCount: usize,
  G: f64,
  H: f64,
  lambda: f64,
  minChildWeight: f64,
  gamma: f64,
  outFeature: usize,
  outBin: usize,
  outGL: usize,
  outHL: usize,
): bool {
  const parentScore = (G * G) / (H + lambda);
  let best: f64 = -Infinity;
  for (let j: usize = 0; j < p; j++) {
    const cuts = <usize>load<i32>(cutCount + (j << 2));
    let GL: f64 = 0;
    let HL: f64 = 0;
    for (let b: usize = 0; b < cuts; b++) {
      const at = hist + ((j * nb + b) << 4);
      GL += load<f64>(at);
      HL += load<f64>(at, 8);
      if (HL < minChildWeight) continue;
      const HR = H - HL;
      if (HR < minChildWeight) break;
      const GR = G - GL;
      const gain = (GL * GL) / (HL + lambda) + (GR * GR) / (HR + lambda) - parentScore;
      if (gain > best) {
        best = gain;
        store<i32>(outFeature, <i32>j);
        store<i32>(outBin, <i32>b);
        store<f64>(outGL, GL);
        store<f64>(outHL, HL);
      }
    }
  }
  return best > RT_EPS && best >= gamma;
}
