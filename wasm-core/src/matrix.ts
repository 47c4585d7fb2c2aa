import { F64Buffer } from "./f64-buffer.js";

/** Column-major matrix: values[col * rows + row]. Same layout as DataTable.values. */
export interface Matrix {
  rows: number;
  cols: number;
  values: Float64Array;
}

/**
 * A column-major matrix already written into wasm memory, for data used by several kernels (fit,
 * then predict, then metrics) so a large X is copied in once. Its creator frees `buffer`.
 */
export interface WasmMatrix {
  rows: number;
  cols: number;
  buffer: F64Buffer;
}

/** A matrix from column-major values, checking that the length is rows * cols. */
export function createMatrix(rows: number, cols: number, values: Float64Array): Matrix {
  const matrix = { rows, cols, values };
  assertMatrix(matrix, "matrix");
  return matrix;
}

/** Throws RangeError unless rows, cols are non-negative integers and values holds rows * cols numbers. */
export function assertMatrix(x: Matrix | WasmMatrix, name: string): void {
  if (!Number.isInteger(x.rows) || x.rows < 0 || !Number.isInteger(x.cols) || x.cols < 0) {
    throw new RangeError(`${name}: rows and cols must be non-negative integers, got ${x.rows} x ${x.cols}`);
  }
  const length = "buffer" in x ? x.buffer.length : x.values.length;
  if (length !== x.rows * x.cols)
    throw new RangeError(`${name}: ${x.rows} x ${x.cols} needs ${x.rows * x.cols} values, got ${length}`);
}

/** Copies a matrix into wasm memory; the caller frees the returned buffer. */
export function matrixToWasm(x: Matrix): WasmMatrix {
  assertMatrix(x, "matrix");
  return { rows: x.rows, cols: x.cols, buffer: F64Buffer.from(x.values) };
}

/** A copy of a wasm-resident matrix in JavaScript memory. */
export function matrixFromWasm(x: WasmMatrix): Matrix {
  return { rows: x.rows, cols: x.cols, values: x.buffer.toArray() };
}

/**
 * Runs body with x resident in wasm memory: a WasmMatrix is used as is, a Matrix is copied in and
 * freed afterwards.
 */
export function withResidentMatrix<T>(x: Matrix | WasmMatrix, name: string, body: (resident: WasmMatrix) => T): T {
  assertMatrix(x, name);
  if ("buffer" in x) return body(x);
  const resident = { rows: x.rows, cols: x.cols, buffer: F64Buffer.from(x.values) };
  try {
    return body(resident);
  } finally {
    resident.buffer.free();
  }
}

/** Runs body with a vector resident in wasm memory (copied in and freed unless already an F64Buffer). */
export function withResidentVector<T>(v: ArrayLike<number> | F64Buffer, body: (resident: F64Buffer) => T): T {
  if (v instanceof F64Buffer) return body(v);
  const resident = F64Buffer.from(v);
  try {
    return body(resident);
  } finally {
    resident.free();
  }
}
