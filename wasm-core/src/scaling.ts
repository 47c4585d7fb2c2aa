import { F64Buffer, withBuffers } from "./f64-buffer.js";
import { type Matrix, type WasmMatrix, assertMatrix, withResidentMatrix } from "./matrix.js";
import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * Per-column scale of scikit-learn's MaxAbsScaler: max |x_j|, and 1.0 for an all-zero column.
 * Throws WasmKernelError (notFinite) on NaN or infinity.
 */
export function fitMaxAbsScale(x: Matrix | WasmMatrix): Float64Array {
  return withResidentMatrix(x, "fitMaxAbsScale x", (m) => {
    const scale = F64Buffer.alloc(m.cols);
    return withBuffers([scale], () => {
      assertKernelOk("maxAbsScale", core().maxAbsScale(m.buffer.ptr, m.rows, m.cols, scale.ptr));
      return scale.toArray();
    });
  });
}

/** x / scale, column by column, as a new matrix (MaxAbsScaler.transform). */
export function applyScale(x: Matrix | WasmMatrix, scale: ArrayLike<number>): Matrix {
  const scaled = applyScaleResident(x, scale);
  return withBuffers([scaled.buffer], () => ({ rows: scaled.rows, cols: scaled.cols, values: scaled.buffer.toArray() }));
}

/** x / scale as a new wasm-resident matrix (no copy out, for predictions that follow); the caller frees its buffer. */
export function applyScaleResident(x: Matrix | WasmMatrix, scale: ArrayLike<number>): WasmMatrix {
  assertMatrix(x, "applyScale x");
  if (scale.length !== x.cols) throw new RangeError(`applyScale: ${x.cols} columns but ${scale.length} scales`);
  return withResidentMatrix(x, "applyScale x", (m) => {
    const out = F64Buffer.alloc(m.rows * m.cols);
    const s = F64Buffer.from(scale);
    try {
      withBuffers([s], () => assertKernelOk("applyScale", core().applyScale(m.buffer.ptr, m.rows, m.cols, s.ptr, out.ptr)));
    } catch (error) {
      out.free();
      throw error;
    }
    return { rows: m.rows, cols: m.cols, buffer: out };
  });
}

/** Scales a wasm-resident matrix in place (no copy out). */
export function applyScaleInWasm(x: WasmMatrix, scale: ArrayLike<number>): void {
  assertMatrix(x, "applyScaleInWasm x");
  if (scale.length !== x.cols) throw new RangeError(`applyScaleInWasm: ${x.cols} columns but ${scale.length} scales`);
  const s = F64Buffer.from(scale);
  withBuffers([s], () => {
    assertKernelOk("applyScale", core().applyScale(x.buffer.ptr, x.rows, x.cols, s.ptr, x.buffer.ptr));
  });
}
