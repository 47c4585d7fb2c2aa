import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, withResidentMatrix } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** Values of a leaf's feature and threshold (sklearn's TREE_UNDEFINED) and of its children (TREE_LEAF). */
export const TREE_UNDEFINED = -2;
export const TREE_LEAF = -1;

/**
 * One regression tree as sklearn's `tree_` arrays, node 0 the root: a row goes to `left[i]` when
 * float32(x[feature[i]]) <= threshold[i], else to `right[i]`; a leaf has feature -2 and children -1,
 * and `value[i]` is its output. Children come after their parent.
 */
export interface RegressionTree {
  feature: Int32Array;
  threshold: Float64Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
}

/** prediction = base + sum over trees of scale * (leaf value), tree by tree. */
export interface TreeEnsemble {
  base: number;
  scale: number;
  trees: readonly RegressionTree[];
}

/**
 * An ensemble written into wasm memory once, for repeated predictions (the estimator's hot path).
 * Its creator calls free().
 */
export interface PackedTreeEnsemble {
  readonly base: number;
  readonly scale: number;
  readonly treeCount: number;
  readonly nodes: F64Buffer;
  readonly treeStarts: F64Buffer;
  free(): void;
}

const NODE_WIDTH = 5;

/** Copies an ensemble's trees into wasm memory (5 float64 per node: feature, threshold, left, right, value). */
export function packTreeEnsemble(ensemble: TreeEnsemble): PackedTreeEnsemble {
  const total = ensemble.trees.reduce((sum, tree) => sum + tree.feature.length, 0);
  const starts = new Float64Array(ensemble.trees.length + 1);
  const records = new Float64Array(total * NODE_WIDTH);
  let at = 0;
  ensemble.trees.forEach((tree, t) => {
    const count = tree.feature.length;
    if (
      tree.threshold.length !== count ||
      tree.left.length !== count ||
      tree.right.length !== count ||
      tree.value.length !== count
    ) {
      throw new RangeError(`tree ${t}: feature, threshold, left, right and value need ${count} entries each`);
    }
    starts[t] = at;
    for (let k = 0; k < count; k++) {
      const o = (at + k) * NODE_WIDTH;
      records[o] = tree.feature[k]!;
      records[o + 1] = tree.threshold[k]!;
      records[o + 2] = tree.left[k]!;
      records[o + 3] = tree.right[k]!;
      records[o + 4] = tree.value[k]!;
    }
    at += count;
  });
  starts[ensemble.trees.length] = at;
  const nodes = F64Buffer.from(records);
  const treeStarts = F64Buffer.from(starts);
  return {
    base: ensemble.base,
    scale: ensemble.scale,
    treeCount: ensemble.trees.length,
    nodes,
    treeStarts,
    free() {
      nodes.free();
      treeStarts.free();
    },
  };
}

/**
 * Predicts every row of x with a tree ensemble. Throws WasmKernelError (dimension) for a malformed
 * tree (a feature index beyond x's columns, a child outside its tree or before its parent) and
 * (notFinite) for NaN/inf in x.
 */
export function predictTreeEnsemble(ensemble: TreeEnsemble | PackedTreeEnsemble, x: Matrix | WasmMatrix): Float64Array {
  const packed = "nodes" in ensemble ? ensemble : packTreeEnsemble(ensemble);
  try {
    return withResidentMatrix(x, "predictTreeEnsemble x", (m) => {
      const out = F64Buffer.alloc(m.rows);
      return withBuffers([out], () => {
        assertKernelOk(
          "predictTreeEnsemble",
          core().predictTreeEnsemble(
            m.buffer.ptr,
            m.rows,
            m.cols,
            packed.nodes.ptr,
            packed.treeStarts.ptr,
            packed.treeCount,
            packed.base,
            packed.scale,
            out.ptr,
          ),
        );
        return out.toArray();
      });
    });
  } finally {
    if (packed !== ensemble) packed.free();
  }
}

/** Splits a fit kernel's node block (slotsPerTree records per tree) into trees of counts[t] nodes. */
export function treesFromNodeBlock(block: Float64Array, slotsPerTree: number, counts: Float64Array): RegressionTree[] {
  return Array.from(counts, (count, t) => {
    const tree: RegressionTree = {
      feature: new Int32Array(count),
      threshold: new Float64Array(count),
      left: new Int32Array(count),
      right: new Int32Array(count),
      value: new Float64Array(count),
    };
    const first = t * slotsPerTree * NODE_WIDTH;
    for (let k = 0; k < count; k++) {
      const o = first + k * NODE_WIDTH;
      tree.feature[k] = block[o]!;
      tree.threshold[k] = block[o + 1]!;
      tree.left[k] = block[o + 2]!;
      tree.right[k] = block[o + 3]!;
      tree.value[k] = block[o + 4]!;
    }
    return tree;
  });
}
