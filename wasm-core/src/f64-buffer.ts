import { core } from "./module.js";

/**
 * A block of float64 values in wasm memory, owned by whoever created it and released with free().
 * Views are re-created on each call because any allocation may grow (and detach) the memory.
 */
export class F64Buffer {
  private freed = false;

  private constructor(
    readonly ptr: number,
    readonly length: number,
  ) {}

  /** Allocates `length` float64 values (uninitialised). */
  static alloc(length: number): F64Buffer {
    if (!Number.isInteger(length) || length < 0)
      throw new RangeError(`F64Buffer length must be a non-negative integer, got ${length}`);
    const ptr = core().allocBytes(Math.max(8, length * 8));
    return new F64Buffer(ptr, length);
  }

  /** Allocates and fills from an array of numbers (one bulk copy for typed arrays). */
  static from(values: ArrayLike<number>): F64Buffer {
    const buffer = F64Buffer.alloc(values.length);
    buffer.view().set(values);
    return buffer;
  }

  /**
   * Allocates and fills from packed little-endian float64 bytes at any byte offset (a decoded
   * protobuf `bytes` field): a single byte-wise copy, no unaligned Float64Array needed.
   */
  static fromBytes(bytes: Uint8Array): F64Buffer {
    if (bytes.byteLength % 8 !== 0) throw new RangeError(`packed float64 bytes must be a multiple of 8, got ${bytes.byteLength}`);
    const buffer = F64Buffer.alloc(bytes.byteLength / 8);
    new Uint8Array(core().memory.buffer, buffer.ptr, bytes.byteLength).set(bytes);
    return buffer;
  }

  /** A live view over the values; valid until the next call that may allocate in wasm. */
  view(): Float64Array {
    this.assertLive();
    return new Float64Array(core().memory.buffer, this.ptr, this.length);
  }

  /** A copy of the values in JavaScript memory. */
  toArray(): Float64Array {
    return this.view().slice();
  }

  /** Releases the wasm memory. Safe to call twice. */
  free(): void {
    if (this.freed) return;
    this.freed = true;
    core().freeBytes(this.ptr);
  }

  private assertLive(): void {
    if (this.freed) throw new Error("F64Buffer used after free()");
  }
}

/** Runs `body` with buffers that are freed afterwards, whatever happens. */
export function withBuffers<T>(buffers: F64Buffer[], body: () => T): T {
  try {
    return body();
  } finally {
    for (const buffer of buffers) buffer.free();
  }
}
