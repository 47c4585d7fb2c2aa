import { F64Buffer } from "../../../wasm-core/src/index.js";

/**
 * Owns the wasm buffers of one extraction and frees them all at the end, whatever happens; an
 * extraction allocates many short-lived blocks and none may outlive it.
 */
export class WasmScope {
  private readonly buffers: F64Buffer[] = [];

  /** Takes ownership of a buffer and returns it. */
  own(buffer: F64Buffer): F64Buffer {
    this.buffers.push(buffer);
    return buffer;
  }

  /** A zero-filled buffer owned by the scope. */
  zeros(length: number): F64Buffer {
    const buffer = this.own(F64Buffer.alloc(length));
    buffer.view().fill(0);
    return buffer;
  }

  /** A copy of JavaScript values owned by the scope. */
  from(values: ArrayLike<number>): F64Buffer {
    return this.own(F64Buffer.from(values));
  }

  /** Frees every buffer the scope owns. */
  freeAll(): void {
    for (const buffer of this.buffers.splice(0)) buffer.free();
  }
}

/** Runs `body` with a fresh scope that is freed afterwards. */
export function withWasmScope<T>(body: (scope: WasmScope) => T): T {
  const scope = new WasmScope();
  try {
    return body(scope);
  } finally {
    scope.freeAll();
  }
}
