// Raw allocations for tables and vectors the TypeScript wrapper owns.
// heap.alloc (TLSF) returns 16-byte aligned blocks, so f64 and v128 loads are aligned.
// These blocks are outside the garbage collector: the wrapper frees them explicitly.

/** Allocates `size` bytes and returns the address. */
export function allocBytes(size: usize): usize {
  return heap.alloc(size);
}

/** Frees a block returned by allocBytes. */
export function freeBytes(ptr: usize): void {
  heap.free(ptr);
}
