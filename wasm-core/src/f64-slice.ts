// A run of float64 values inside wasm memory, and moving values in and out of one.
import { core } from "./module.js";

/**
 * A run of float64 values inside wasm memory: a whole F64Buffer or part of one. Slices do not own
 * memory; the buffer they point into must outlive them.
 */
export interface F64Slice {
  readonly ptr: number;
  readonly length: number;
}

/** The slice of `buffer` starting at element `offset` with `length` elements. */
export function sliceOf(buffer: F64Slice, offset: number, length: number): F64Slice {
  if (offset < 0 || length < 0 || offset + length > buffer.length) {
    throw new RangeError(`slice [${offset}, ${offset + length}) outside a block of ${buffer.length} values`);
  }
  return { ptr: buffer.ptr + offset * 8, length };
}

/** A copy of a slice's values in JavaScript memory. */
export function readSlice(slice: F64Slice): Float64Array {
  return new Float64Array(core().memory.buffer, slice.ptr, slice.length).slice();
}

/** Copies `length` values between slices inside wasm memory (one bulk move). */
export function copySlice(from: F64Slice, to: F64Slice): void {
  if (to.length < from.length) throw new RangeError("copySlice: destination is shorter than the source");
  new Uint8Array(core().memory.buffer).copyWithin(to.ptr, from.ptr, from.ptr + from.length * 8);
}
