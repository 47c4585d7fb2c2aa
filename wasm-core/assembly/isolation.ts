// Isolation arithmetic: the kernels behind the isolators that turn node power into DynPower labels
// (reference kepler-model-server train/isolator/isolator.py and train_isolator.py, spec §4).
//
// Squeezing container rows into node rows reuses the aggregate kernels (accumulateOnAxis, meanOrMissing);
// these kernels do what comes after: normalising ratio columns to sum to 1 per row (squeeze_data),
// subtracting a background per label column (MinIdleIsolator's minimum, ProfileBackgroundIsolator's idle
// power) with a clamp at 0, and TrainIsolator's dynamic-power scaling. Blocks are column-major f64.
import { OK, ERR_DIMENSION } from "./status";

function at(ptr: usize, i: i32): f64 {
  return load<f64>(ptr + ((<usize>i) << 3));
}

function put(ptr: usize, i: i32, v: f64): void {
  store<f64>(ptr + ((<usize>i) << 3), v);
}

/**
 * Divides each of `cols` consecutive columns (rows values each) by the row's sum over those columns, in
 * place: the reference's `ratio / ratio.sum(axis=1)` after summing ratios over containers. A row summing
 * to 0 gives NaN, as pandas does.
 */
export function normalizeRowSums(blockPtr: usize, rows: i32, cols: i32): i32 {
  if (rows < 0 || cols < 0) return ERR_DIMENSION;
  for (let i = 0; i < rows; i++) {
    let sum: f64 = 0;
    for (let j = 0; j < cols; j++) sum += at(blockPtr, j * rows + i);
    for (let j = 0; j < cols; j++) put(blockPtr, j * rows + i, at(blockPtr, j * rows + i) / sum);
  }
  return OK;
}

/**
 * out[j][i] = block[j][i] - offsets[group[i] * cols + j] for a rows x cols column-major block, where
 * group[i] (an f64 index, one per row) picks the row's offsets (one offset per column per group: the
 * minimum of each label column, or a node type's idle power). With clamp != 0 negative results become 0
 * (DynPower labels are never negative). Returns how many values were clamped, or ERR_DIMENSION when a
 * group index is outside 0..groups-1. NaN inputs stay NaN.
 */
export function subtractGroupOffsets(
  blockPtr: usize,
  rows: i32,
  cols: i32,
  groupPtr: usize,
  offsetsPtr: usize,
  groups: i32,
  clamp: i32,
  outPtr: usize,
): i32 {
  if (rows < 0 || cols < 0 || groups < 0) return ERR_DIMENSION;
  for (let i = 0; i < rows; i++) {
    const g = at(groupPtr, i);
    if (!(g >= 0 && g < <f64>groups) || g != Math.floor(g)) return ERR_DIMENSION;
  }
  let clamped: i32 = 0;
  for (let j = 0; j < cols; j++) {
    for (let i = 0; i < rows; i++) {
      const g = <i32>at(groupPtr, i);
      let v = at(blockPtr, j * rows + i) - at(offsetsPtr, g * cols + j);
      if (clamp != 0 && v < 0) {
        v = 0;
        clamped++;
      }
      put(outPtr, j * rows + i, v);
    }
  }
  return clamped;
}

/**
 * TrainIsolator's dynamic power: dynamic[i] = max(0, node[i] - background[i]) (the reference computes
 * this clip but never assigns it; we apply it, see docs/deviations.md). A NaN background counts as 0
 * background, a NaN node power gives 0. Returns how many rows were clamped.
 */
export function dynamicPower(nodePtr: usize, backgroundPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  let clamped: i32 = 0;
  for (let i = 0; i < n; i++) {
    const node = at(nodePtr, i);
    const background = at(backgroundPtr, i);
    let v = Number.isNaN(background) ? node : node - background;
    if (Number.isNaN(v)) v = 0;
    if (v < 0) {
      v = 0;
      clamped++;
    }
    put(outPtr, i, v);
  }
  return clamped;
}

/**
 * TrainIsolator's label scaling: out[i] = label[i] / node[i] * dynamic[i], the label's share of the node
 * power applied to the dynamic power. A non-finite result (0/0 when the node draws nothing) becomes 0, as
 * the reference's fillna(0); a negative one becomes 0.
 */
export function scaleByShare(labelPtr: usize, nodePtr: usize, dynamicPtr: usize, n: i32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  for (let i = 0; i < n; i++) {
    let v = (at(labelPtr, i) / at(nodePtr, i)) * at(dynamicPtr, i);
    if (!isFinite(v) || v < 0) v = 0;
    put(outPtr, i, v);
  }
  return OK;
}
