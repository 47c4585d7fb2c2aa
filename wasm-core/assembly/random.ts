// Deterministic pseudo-random numbers: MT19937 (Matsumoto & Nishimura 1998) with NumPy's legacy
// seeding, so that a seed here means what `numpy.random.RandomState(seed)` means:
// - mtSeed is MT19937 init_genrand (numpy mt19937_seed): key[0] = seed,
//   key[i] = 1812433253 * (key[i-1] ^ (key[i-1] >> 30)) + i.
// - permutation(n, seed) equals RandomState(seed).permutation(n): a Fisher-Yates shuffle of 0..n-1
//   from the last position down, each position i swapped with j drawn by numpy's random_interval(i)
//   (mask-and-reject on 32-bit draws). scikit-learn's train_test_split(shuffle=True,
//   random_state=seed) takes its test rows from the front of exactly this permutation.
// - mtRandintBelow draws like RandomState.randint(low, high) in legacy (masked) mode; the SGD kernel
//   uses it to derive the shuffling seed the way SGDRegressor does.
// The generator state is a raw block (MT_STATE_BYTES) owned by the caller.
import { ERR_DIMENSION, OK } from "./status";

const N: i32 = 624;
const M: i32 = 397;
const MATRIX_A: u32 = 0x9908b0df;
const UPPER_MASK: u32 = 0x80000000;
const LOWER_MASK: u32 = 0x7fffffff;

/** Bytes of one generator state: 624 words plus the read position. */
export const MT_STATE_BYTES: usize = (<usize>N + 1) << 2;

/** Seeds the state at statePtr like numpy's RandomState(seed). */
export function mtSeed(statePtr: usize, seed: u32): void {
  let s = seed;
  for (let i = 0; i < N; i++) {
    store<u32>(statePtr + ((<usize>i) << 2), s);
    s = 1812433253 * (s ^ (s >> 30)) + <u32>(i + 1);
  }
  store<i32>(statePtr + ((<usize>N) << 2), N);
}

function twist(statePtr: usize): void {
  for (let i = 0; i < N; i++) {
    const next = i + 1 < N ? i + 1 : 0;
    const far = i + M < N ? i + M : i + M - N;
    const y = (load<u32>(statePtr + ((<usize>i) << 2)) & UPPER_MASK) | (load<u32>(statePtr + ((<usize>next) << 2)) & LOWER_MASK);
    let v = load<u32>(statePtr + ((<usize>far) << 2)) ^ (y >> 1);
    if (y & 1) v ^= MATRIX_A;
    store<u32>(statePtr + ((<usize>i) << 2), v);
  }
  store<i32>(statePtr + ((<usize>N) << 2), 0);
}

/** The next 32-bit output (tempered), as numpy's next_uint32 on MT19937. */
export function mtNextU32(statePtr: usize): u32 {
  let pos = load<i32>(statePtr + ((<usize>N) << 2));
  if (pos >= N) {
    twist(statePtr);
    pos = 0;
  }
  let y = load<u32>(statePtr + ((<usize>pos) << 2));
  store<i32>(statePtr + ((<usize>N) << 2), pos + 1);
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680;
  y ^= (y << 15) & 0xefc60000;
  y ^= y >> 18;
  return y;
}

/** Uniform integer in [0, max] by numpy's random_interval (mask, then reject), for max < 2^32. */
export function mtInterval(statePtr: usize, max: u32): u32 {
  if (max == 0) return 0;
  let mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  let value: u32;
  do {
    value = mtNextU32(statePtr) & mask;
  } while (value > max);
  return value;
}

/** RandomState.randint(low, high) (legacy masked mode) for 0 <= low < high <= 2^31. */
export function mtRandint(statePtr: usize, low: u32, high: u32): u32 {
  return low + mtInterval(statePtr, high - low - 1);
}

/** Writes RandomState(seed).permutation(n) as u32 values to outPtr. */
export function permutation(n: i32, seed: u32, outPtr: usize): i32 {
  if (n < 0) return ERR_DIMENSION;
  const state = heap.alloc(MT_STATE_BYTES);
  mtSeed(state, seed);
  for (let i = 0; i < n; i++) store<u32>(outPtr + ((<usize>i) << 2), <u32>i);
  for (let i = n - 1; i >= 1; i--) {
    const j = mtInterval(state, <u32>i);
    const pi = outPtr + ((<usize>i) << 2);
    const pj = outPtr + ((<usize>j) << 2);
    const t = load<u32>(pi);
    store<u32>(pi, load<u32>(pj));
    store<u32>(pj, t);
  }
  heap.free(state);
  return OK;
}
