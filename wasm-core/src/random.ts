import { core } from "./module.js";
import { assertKernelOk } from "./status.js";

/**
 * A seeded shuffle of 0..n-1, computed in wasm with MT19937: identical to
 * numpy.random.RandomState(seed).permutation(n), so scikit-learn's
 * train_test_split(shuffle=True, random_state=seed) takes its ceil(test_size * n) test rows from
 * the front of this permutation and its train rows from the rest.
 */
export function permutation(n: number, seed: number): Uint32Array {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`permutation: n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new RangeError(`permutation: seed must be an integer in [0, 2^32), got ${seed}`);
  const bytes = Math.max(8, n * 4);
  const ptr = core().allocBytes(bytes);
  try {
    assertKernelOk("permutation", core().permutation(n, seed, ptr));
    return new Uint32Array(core().memory.buffer, ptr, n).slice();
  } finally {
    core().freeBytes(ptr);
  }
}
