import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { core } from "./module.js";
import { assertKernelOk, KernelStatus, WasmKernelError } from "./status.js";

/** A column-major float64 matrix (the layout of DataTable.values). */
interface ColumnMajor {
  rows: number;
  cols: number;
  values: Float64Array;
}

/** Per-column summary of the finite values, as numpy's min/max/mean/std (population) compute them. */
export interface ColumnStats {
  min: number;
  max: number;
  mean: number;
  /** Population standard deviation (numpy's default ddof=0). */
  std: number;
  /** How many values are NaN or infinite (left out of the other statistics). */
  nonFiniteCount: number;
}

const STATS_WIDTH = 5;

// A raw block of u32/i32 values in wasm memory, freed by whoever allocated it.
function allocWords(count: number): number {
  return core().allocBytes(Math.max(4, count * 4));
}

function writeWords(ptr: number, values: ArrayLike<number>): void {
  new Uint32Array(core().memory.buffer, ptr, values.length).set(values);
}

function checkMatrix(kernel: string, x: ColumnMajor): void {
  if (x.values.length !== x.rows * x.cols) throw new WasmKernelError(kernel, KernelStatus.dimension);
}

/** Rows `rows` of `x` in that order (numpy's X[rows]); also works on a vector as a 1-column matrix. */
export function takeRows<M extends ColumnMajor>(x: M, rows: Uint32Array): ColumnMajor {
  checkMatrix("takeRows", x);
  const xBuf = F64Buffer.from(x.values);
  const out = F64Buffer.alloc(rows.length * x.cols);
  const rowsPtr = allocWords(rows.length);
  try {
    writeWords(rowsPtr, rows);
    assertKernelOk("takeRows", core().takeRows(xBuf.ptr, x.rows, x.cols, rowsPtr, rows.length, out.ptr));
    return { rows: rows.length, cols: x.cols, values: out.toArray() };
  } finally {
    core().freeBytes(rowsPtr);
    xBuf.free();
    out.free();
  }
}

/** Elements `rows` of a vector, in that order. */
export function takeElements(y: Float64Array, rows: Uint32Array): Float64Array {
  return takeRows({ rows: y.length, cols: 1, values: y }, rows).values;
}

/** Min, max, mean, population std and non-finite count of every column. */
export function columnStats(x: ColumnMajor): ColumnStats[] {
  checkMatrix("columnStats", x);
  const xBuf = F64Buffer.from(x.values);
  const out = F64Buffer.alloc(x.cols * STATS_WIDTH);
  return withBuffers([xBuf, out], () => {
    assertKernelOk("columnStats", core().columnStats(xBuf.ptr, x.rows, x.cols, out.ptr));
    const s = out.toArray();
    return Array.from({ length: x.cols }, (_, j) => ({
      min: s[j * STATS_WIDTH] as number,
      max: s[j * STATS_WIDTH + 1] as number,
      mean: s[j * STATS_WIDTH + 2] as number,
      std: s[j * STATS_WIDTH + 3] as number,
      nonFiniteCount: s[j * STATS_WIDTH + 4] as number,
    }));
  });
}

/** Statistics of one vector. */
export function vectorStats(y: Float64Array): ColumnStats {
  return columnStats({ rows: y.length, cols: 1, values: y })[0] as ColumnStats;
}

/** Every row of `x` multiplied by its factor (the reference's features x packge_ratio column). */
export function multiplyRows(x: ColumnMajor, factors: Float64Array): ColumnMajor {
  checkMatrix("multiplyRows", x);
  if (factors.length !== x.rows) throw new WasmKernelError("multiplyRows", KernelStatus.dimension);
  const xBuf = F64Buffer.from(x.values);
  const fBuf = F64Buffer.from(factors);
  const out = F64Buffer.alloc(x.values.length);
  return withBuffers([xBuf, fBuf, out], () => {
    assertKernelOk("multiplyRows", core().multiplyRows(xBuf.ptr, x.rows, x.cols, fBuf.ptr, out.ptr));
    return { rows: x.rows, cols: x.cols, values: out.toArray() };
  });
}

/** Ascending indices of the elements equal to `value` (NaN matches nothing). */
export function rowsWhereEqual(values: Float64Array, value: number): Uint32Array {
  const vBuf = F64Buffer.from(values);
  const outPtr = allocWords(values.length);
  try {
    const count = core().rowsWhereEqual(vBuf.ptr, values.length, value, outPtr);
    if (count < 0) assertKernelOk("rowsWhereEqual", count);
    return new Uint32Array(core().memory.buffer, outPtr, count).slice();
  } finally {
    core().freeBytes(outPtr);
    vBuf.free();
  }
}

/** The distinct finite values, ascending (pandas unique, sorted). */
export function distinctValues(values: Float64Array): Float64Array {
  const vBuf = F64Buffer.from(values);
  const out = F64Buffer.alloc(values.length);
  const scratchPtr = allocWords(values.length);
  try {
    const count = core().distinctValues(vBuf.ptr, values.length, scratchPtr, out.ptr);
    if (count < 0) assertKernelOk("distinctValues", count);
    return out.view().slice(0, count);
  } finally {
    core().freeBytes(scratchPtr);
    vBuf.free();
    out.free();
  }
}

/** For each needle, the first index in `haystack` holding the same value, or -1. */
export function indexOfValues(haystack: Float64Array, needles: Float64Array): Int32Array {
  const hBuf = F64Buffer.from(haystack);
  const nBuf = F64Buffer.from(needles);
  const scratchPtr = allocWords(haystack.length);
  const outPtr = allocWords(needles.length);
  try {
    assertKernelOk(
      "indexOfValues",
      core().indexOfValues(hBuf.ptr, haystack.length, nBuf.ptr, needles.length, scratchPtr, outPtr),
    );
    return new Int32Array(core().memory.buffer, outPtr, needles.length).slice();
  } finally {
    core().freeBytes(scratchPtr);
    core().freeBytes(outPtr);
    hBuf.free();
    nBuf.free();
  }
}

/** The indices 0..n-1 that are not in `rows`, ascending. */
export function complementRows(n: number, rows: Uint32Array): Uint32Array {
  const rowsPtr = allocWords(rows.length);
  const markPtr = core().allocBytes(Math.max(1, n));
  const outPtr = allocWords(n);
  try {
    writeWords(rowsPtr, rows);
    const count = core().complementRows(n, rowsPtr, rows.length, markPtr, outPtr);
    if (count < 0) assertKernelOk("complementRows", count);
    return new Uint32Array(core().memory.buffer, outPtr, count).slice();
  } finally {
    core().freeBytes(rowsPtr);
    core().freeBytes(markPtr);
    core().freeBytes(outPtr);
  }
}
