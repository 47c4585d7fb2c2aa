import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix, withResidentVector } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/** A k-nearest-neighbour regressor: the training rows themselves. */
export interface KnnModel {
  x: Matrix | WasmMatrix;
  y: ArrayLike<number> | F64Buffer;
  k: number;
}

/** Options of predictKnn: the search algorithm (both are exact and give the same neighbours). */
export interface PredictKnnOptions {
  algorithm?: "kd-tree" | "brute";
}

const algorithmCode = { brute: 0, "kd-tree": 1 } as const;

/**
 * sklearn KNeighborsRegressor(n_neighbors=k, weights="uniform"), Euclidean: the mean target of the
 * k nearest training rows, ties broken by training-row index. Throws WasmKernelError (tooFewRows)
 * when there are fewer training rows than k, (notFinite) on NaN.
 */
export function predictKnn(model: KnnModel, queries: Matrix | WasmMatrix, options: PredictKnnOptions = {}): Float64Array {
  const { x, y, k } = model;
  assertMatrix(x, "predictKnn model.x");
  assertMatrix(queries, "predictKnn queries");
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`predictKnn: k must be a positive integer, got ${k}`);
  if (y.length !== x.rows) throw new RangeError(`predictKnn: ${x.rows} training rows but ${y.length} targets`);
  if (queries.cols !== x.cols) throw new RangeError(`predictKnn: queries have ${queries.cols} columns, training rows ${x.cols}`);
  const algorithm = algorithmCode[options.algorithm ?? "kd-tree"];
  return withResidentMatrix(x, "predictKnn model.x", (xm) =>
    withResidentVector(y, (yb) =>
      withResidentMatrix(queries, "predictKnn queries", (qm) => {
        const out = F64Buffer.alloc(qm.rows);
        return withBuffers([out], () => {
          assertKernelOk(
            "predictKnn",
            core().predictKnn(xm.buffer.ptr, xm.rows, xm.cols, yb.ptr, k, qm.buffer.ptr, qm.rows, algorithm, out.ptr),
          );
          return out.toArray();
        });
      }),
    ),
  );
}
