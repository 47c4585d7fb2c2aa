// One regression tree of a gradient-boosting stage, grown as scikit-learn 1.2.1's DecisionTreeRegressor
// (splitter="best", max_features=None, min_samples_split 2, min_samples_leaf 1, min_impurity_decrease 0)
// does it inside GradientBoostingRegressor:
// - DepthFirstTreeBuilder: nodes are split in preorder (a stack; the left child first) and numbered in
//   that order. A node is a leaf at max_depth, with fewer than 2 rows, or with impurity <= DBL_EPSILON
//   (the root's from its own sums; a child's from its parent's split, as children_impurity computes it).
// - BestSplitter.node_split: features are visited in a random order, a Fisher-Yates draw per node from
//   the tree's rand_r state (all features are visited; ones found constant, max - min <= 1e-7 in float32,
//   are skipped and remembered for the node's descendants, exactly as sklearn's features /
//   constant_features arrays evolve); candidates sit between consecutive values x[q-1] < x[q] with
//   x[q] > x[q-1] + 1e-7 (float32 arithmetic, as FEATURE_THRESHOLD is a float32); the score is
//   FriedmanMSE's proxy (n_r * sum_l - n_l * sum_r)^2 / (n_l * n_r) and the first strictly greater one
//   wins, so equally good splits of two features go to the one drawn first; threshold = midpoint.
// - Random numbers: sklearn's our_rand_r (xorshift32 reduced mod 2^31), rand_int(low, high) =
//   low + r % (high - low), seeded per tree with RandomState.randint(0, RAND_R_MAX) (the caller draws it).
// Rows: each feature keeps (value, row, residual) triplets, each node's rows one segment in ascending
// feature order (partitioned stably after a split), so a node is scanned without sorting.
import { LEAF, midpoint, writeNode, NODE_WIDTH } from "./regression-tree";

const FEATURE_THRESHOLD: f32 = 1e-7;
const EPSILON: f64 = 2.220446049250313e-16;

@final
export class BoostingTreeGrower {
  // per feature j, at offset j * n: sorted values, their rows, their residuals
  readonly wVal: usize;
  readonly wIdx: usize;
  readonly wRes: usize;
  private readonly tVal: usize;
  private readonly tIdx: usize;
  private readonly tRes: usize;
  private readonly goLeft: usize;
  // sklearn's splitter.features and splitter.constant_features
  private readonly features: usize;
  private readonly constants: usize;
  // the depth-first stack: start, count, depth, parent * 2 + isLeft, known constants, rows' feature (i32);
  // sum, sum of squares, impurity (f64)
  private readonly stackI: usize;
  private readonly stackF: usize;
  private randState: u32 = 0;
  // the last splitNode's result
  private bestFeature: i32 = -1;
  private bestCount: i32 = 0;
  private bestThreshold: f64 = 0;
  private constantsAfter: i32 = 0;

  constructor(
    readonly n: usize,
    readonly p: usize,
    readonly maxDepth: i32,
  ) {
    this.wVal = heap.alloc((n * p) << 2);
    this.wIdx = heap.alloc((n * p) << 2);
    this.wRes = heap.alloc((n * p) << 3);
    this.tVal = heap.alloc(n << 2);
    this.tIdx = heap.alloc(n << 2);
    this.tRes = heap.alloc(n << 3);
    this.goLeft = heap.alloc(n);
    this.features = heap.alloc(p << 2);
    this.constants = heap.alloc(p << 2);
    const slots = (<usize>maxDepth + 2) << 1;
    this.stackI = heap.alloc(slots * 24);
    this.stackF = heap.alloc(slots * 24);
  }

  free(): void {
    heap.free(this.wVal);
    heap.free(this.wIdx);
    heap.free(this.wRes);
    heap.free(this.tVal);
    heap.free(this.tIdx);
    heap.free(this.tRes);
    heap.free(this.goLeft);
    heap.free(this.features);
    heap.free(this.constants);
    heap.free(this.stackI);
    heap.free(this.stackF);
  }

  /**
   * Grows one tree on the residuals already in wRes (wVal/wIdx hold the presorted columns; sum and sq
   * are the residuals' sum and sum of squares in row order, as sklearn's root), writing its node records
   * to treeNodes and adding learningRate * leaf value to raw for every row. Returns the node count.
   * randSeed is the splitter's rand_r_state.
   */
  grow(treeNodes: usize, raw: usize, learningRate: f64, randSeed: u32, sum: f64, sq: f64): i32 {
    const n = this.n;
    this.randState = randSeed;
    for (let j: usize = 0; j < this.p; j++) store<i32>(this.features + (j << 2), <i32>j);
    const mean0 = sum / <f64>n;
    this.push(0, 0, <i32>n, 0, -1, 0, 0, sum, sq, sq / <f64>n - mean0 * mean0);
    let top = 1;
    let nodeCount: i32 = 0;
    while (top > 0) {
      top--;
      const si = this.stackI + ((<usize>top * 6) << 2);
      const sf = this.stackF + ((<usize>top * 3) << 3);
      const start = load<i32>(si);
      const count = load<i32>(si, 4);
      const depth = load<i32>(si, 8);
      const parentSide = load<i32>(si, 12);
      const known = load<i32>(si, 16);
      const rowsFeature = load<i32>(si, 20);
      const total = load<f64>(sf);
      const sqTotal = load<f64>(sf, 8);
      const impurity = load<f64>(sf, 16);
      const k = nodeCount++;
      if (parentSide >= 0) {
        const at = treeNodes + ((<usize>(parentSide >> 1) * <usize>NODE_WIDTH) << 3);
        store<f64>(at + ((parentSide & 1) != 0 ? 16 : 24), <f64>k);
      }
      const mean = total / <f64>count;
      let feature: i32 = -1;
      if (depth < this.maxDepth && count >= 2 && impurity > EPSILON) {
        this.splitNode(<usize>start, count, total, known);
        feature = this.bestFeature;
      }
      if (feature < 0) {
        writeNode(treeNodes, k, LEAF, -2, -1, -1, mean);
        const idx = this.wIdx + ((<usize>rowsFeature * n) << 2);
        const value = learningRate * mean;
        for (let q = <usize>start; q < <usize>(start + count); q++) {
          const o = raw + ((<usize>load<u32>(idx + (q << 2))) << 3);
          store<f64>(o, load<f64>(o) + value);
        }
        continue;
      }
      writeNode(treeNodes, k, feature, this.bestThreshold, -1, -1, mean);
      const nL = this.bestCount;
      const nR = count - nL;
      // the left rows' sums in the split feature's order; the right side as sklearn: total - left
      const resF = this.wRes + ((<usize>feature * n) << 3);
      let sL: f64 = 0;
      let qL: f64 = 0;
      for (let q = <usize>start; q < <usize>(start + nL); q++) {
        const r = load<f64>(resF + (q << 3));
        sL += r;
        qL += r * r;
      }
      const sR = total - sL;
      const mL = sL / <f64>nL;
      const mR = sR / <f64>nR;
      const impL = qL / <f64>nL - mL * mL;
      const impR = (sqTotal - qL) / <f64>nR - mR * mR;
      if (depth + 1 < this.maxDepth) this.partition(<usize>start, <usize>count, <usize>feature, <usize>nL);
      const c = this.constantsAfter;
      // right pushed first so the left child is split first (sklearn's stack)
      this.push(top++, start + nL, nR, depth + 1, k * 2, c, feature, sR, sqTotal - qL, impR);
      this.push(top++, start, nL, depth + 1, k * 2 + 1, c, feature, sL, qL, impL);
    }
    return nodeCount;
  }

  private push(
    at: i32,
    start: i32,
    count: i32,
    depth: i32,
    parentSide: i32,
    known: i32,
    rowsFeature: i32,
    sum: f64,
    sq: f64,
    impurity: f64,
  ): void {
    const si = this.stackI + ((<usize>at * 6) << 2);
    const sf = this.stackF + ((<usize>at * 3) << 3);
    store<i32>(si, start);
    store<i32>(si, count, 4);
    store<i32>(si, depth, 8);
    store<i32>(si, parentSide, 12);
    store<i32>(si, known, 16);
    store<i32>(si, rowsFeature, 20);
    store<f64>(sf, sum);
    store<f64>(sf, sq, 8);
    store<f64>(sf, impurity, 16);
  }

  // sklearn's rand_int(low, high): low + our_rand_r() % (high - low)
  private randInt(low: i32, high: i32): i32 {
    let s = this.randState;
    if (s == 0) s = 1;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    this.randState = s;
    return low + <i32>((s & 0x7fffffff) % <u32>(high - low));
  }

  private swapFeatures(a: i32, b: i32): void {
    const pa = this.features + ((<usize>a) << 2);
    const pb = this.features + ((<usize>b) << 2);
    const t = load<i32>(pa);
    store<i32>(pa, load<i32>(pb));
    store<i32>(pb, t);
  }

  // BestSplitter.node_split on the node's rows [start, start + count); `known` features at the front of
  // `features` are constant in an ancestor. Sets bestFeature (-1: none), bestCount, bestThreshold and
  // constantsAfter (the node's children's known constants).
  private splitNode(start: usize, count: i32, total: f64, known: i32): void {
    const n = this.n;
    const cN = <f64>count;
    const end = start + <usize>count;
    let best: f64 = -Infinity;
    this.bestFeature = -1;
    let fi = <i32>this.p;
    let visited: i32 = 0;
    let found: i32 = 0;
    let drawn: i32 = 0;
    let totalConstants = known;
    while (fi > totalConstants && (visited < <i32>this.p || visited <= found + drawn)) {
      visited++;
      let fj = this.randInt(drawn, fi - found);
      if (fj < known) {
        this.swapFeatures(drawn, fj);
        drawn++;
        continue;
      }
      fj += found;
      const j = <usize>load<i32>(this.features + ((<usize>fj) << 2));
      const val = this.wVal + ((j * n) << 2);
      if (load<f32>(val + ((end - 1) << 2)) <= load<f32>(val + (start << 2)) + FEATURE_THRESHOLD) {
        this.swapFeatures(fj, totalConstants);
        found++;
        totalConstants++;
        continue;
      }
      fi--;
      this.swapFeatures(fi, fj);
      const res = this.wRes + ((j * n) << 3);
      let last = load<f32>(val + (start << 2));
      let sL = load<f64>(res + (start << 3));
      for (let q = start + 1; q < end; q++) {
        const v = load<f32>(val + (q << 2));
        if (v > last + FEATURE_THRESHOLD) {
          const cL = <f64>(q - start);
          const cR = cN - cL;
          const diff = cR * sL - cL * (total - sL);
          const proxy = (diff * diff) / (cL * cR);
          if (proxy > best) {
            best = proxy;
            this.bestFeature = <i32>j;
            this.bestCount = <i32>(q - start);
            this.bestThreshold = midpoint(<f64>last, <f64>v);
          }
        }
        sL += load<f64>(res + (q << 3));
        last = v;
      }
    }
    // sklearn keeps the ancestors' constants in their order and appends the ones found here
    memory.copy(this.features, this.constants, (<usize>known) << 2);
    memory.copy(this.constants + ((<usize>known) << 2), this.features + ((<usize>known) << 2), (<usize>found) << 2);
    this.constantsAfter = totalConstants;
  }

  // Stable partition of every other feature's segment: the split feature's first `left` rows go left.
  private partition(start: usize, count: usize, f: usize, left: usize): void {
    const n = this.n;
    const end = start + count;
    const idxF = this.wIdx + ((f * n) << 2);
    for (let q = start; q < end; q++) store<u8>(this.goLeft + <usize>load<u32>(idxF + (q << 2)), q < start + left ? 1 : 0);
    for (let j: usize = 0; j < this.p; j++) {
      if (j == f) continue;
      const val = this.wVal + ((j * n) << 2);
      const idx = this.wIdx + ((j * n) << 2);
      const res = this.wRes + ((j * n) << 3);
      let w = start;
      let o: usize = 0;
      for (let q = start; q < end; q++) {
        const i = load<u32>(idx + (q << 2));
        const v = load<f32>(val + (q << 2));
        const r = load<f64>(res + (q << 3));
        if (load<u8>(this.goLeft + <usize>i) != 0) {
          store<u32>(idx + (w << 2), i);
          store<f32>(val + (w << 2), v);
          store<f64>(res + (w << 3), r);
          w++;
        } else {
          store<u32>(this.tIdx + (o << 2), i);
          store<f32>(this.tVal + (o << 2), v);
          store<f64>(this.tRes + (o << 3), r);
          o++;
        }
      }
      memory.copy(idx + (w << 2), this.tIdx, o << 2);
      memory.copy(val + (w << 2), this.tVal, o << 2);
      memory.copy(res + (w << 3), this.tRes, o << 3);
    }
  }
}
