// Plain stochastic gradient descent for linear regression, following scikit-learn's SGDRegressor
// (sklearn/linear_model/_sgd_fast.pyx `_plain_sgd`, utils/_weight_vector.pyx, utils/_seq_dataset.pyx)
// with the defaults the reference's SGDRegressorTrainer uses: squared loss, L2 penalty, invscaling
// learning rate, fit_intercept, shuffle, no averaging, no early stopping.
//
// Per sample, in sklearn's order: p = (w . x) * wscale + b; eta = eta0 / t^power_t (see
// invscalingDenominator);
// sumloss += (p - y)^2 / 2; update = -eta * clip(p - y, +-1e12); wscale *= max(0, 1 - eta * alpha)
// (w := w * wscale once wscale < 1e-9); w += x * (update / wscale); b += update; t += 1.
// After each epoch: stop with an error on a non-finite weight; no_improvement counts epochs with
// sumloss > best_loss - tol * n, reset otherwise; stop when it reaches n_iter_no_change.
// Shuffling is sklearn's: the shuffle seed is RandomState(random_state).randint(0, 2^31 - 1) (the
// first draw, as _fit_regressor takes it), and every epoch re-runs the same Fisher-Yates pass
// j = i + rand_r() % (n - i) (xorshift 13/17/5, modulo 2^31, restarted from that seed) on the
// index order left by the previous epoch. The same random_state therefore visits samples in the
// same order as sklearn, and results agree up to floating-point rounding of pow/dot.
// The model block holds coef (p), intercept, t on entry (zeros and t = 1 for a fresh fit, the
// previous model to continue); on exit also the number of epochs run and whether it converged.
import { mtRandint, mtSeed, MT_STATE_BYTES } from "./random";
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";

/** Offsets (in f64 values) into the parameter block. */
export const SGD_ALPHA: i32 = 0;
export const SGD_ETA0: i32 = 1;
export const SGD_POWER_T: i32 = 2;
export const SGD_MAX_ITER: i32 = 3;
export const SGD_TOL: i32 = 4;
export const SGD_N_ITER_NO_CHANGE: i32 = 5;
export const SGD_SEED: i32 = 6;
export const SGD_PARAMS: i32 = 7;

const MAX_DLOSS: f64 = 1e12;
const WSCALE_THRESHOLD: f64 = 1e-9;
const RAND_R_MAX: u32 = 0x7fffffff;

// sklearn's our_rand_r: xorshift32, then modulo 2^31.
function randR(seedPtr: usize): u32 {
  let s = load<u32>(seedPtr);
  if (s == 0) s = 1;
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  store<u32>(seedPtr, s);
  return s % (RAND_R_MAX + 1);
}

/**
 * Fits (or continues) SGD on the rows x p column-major X and y. paramsPtr: SGD_PARAMS values;
 * modelPtr: p + 4 values (coef, intercept, t in/out; epochs, converged out).
 */
export function fitSgd(xPtr: usize, rows: i32, p: i32, yPtr: usize, paramsPtr: usize, modelPtr: usize): i32 {
  if (rows < 0 || p < 0) return ERR_DIMENSION;
  if (rows < 1) return ERR_TOO_FEW_ROWS;
  const alpha = load<f64>(paramsPtr + ((<usize>SGD_ALPHA) << 3));
  const eta0 = load<f64>(paramsPtr + ((<usize>SGD_ETA0) << 3));
  const powerT = load<f64>(paramsPtr + ((<usize>SGD_POWER_T) << 3));
  const maxIter = <i32>load<f64>(paramsPtr + ((<usize>SGD_MAX_ITER) << 3));
  const tol = load<f64>(paramsPtr + ((<usize>SGD_TOL) << 3));
  const nIterNoChange = <i32>load<f64>(paramsPtr + ((<usize>SGD_N_ITER_NO_CHANGE) << 3));
  const randomState = <u32>load<f64>(paramsPtr + ((<usize>SGD_SEED) << 3));
  const n = <usize>rows;
  const pp = <usize>p;
  // Rows are visited in random order. Lay [x y] out row-major once (stride p + 1), and at each
  // epoch gather the rows in visiting order into a second block: the gather's loads are
  // independent of each other, so the memory system overlaps them, and the update loop then
  // streams through memory instead of waiting on one cache miss per sample.
  const stride = pp + 1;
  const rowBytes = stride << 3;
  const xr = heap.alloc(n * rowBytes);
  for (let j: usize = 0; j < pp; j++) {
    const col = xPtr + ((j * n) << 3);
    for (let i: usize = 0; i < n; i++) store<f64>(xr + ((i * stride + j) << 3), load<f64>(col + (i << 3)));
  }
  for (let i: usize = 0; i < n; i++) store<f64>(xr + ((i * stride + pp) << 3), load<f64>(yPtr + (i << 3)));
  for (let i: usize = 0; i < n * stride; i++) {
    if (!isFinite(load<f64>(xr + (i << 3)))) {
      heap.free(xr);
      return ERR_NOT_FINITE;
    }
  }
  const epochRows = heap.alloc(n * rowBytes);
  const mt = heap.alloc(MT_STATE_BYTES);
  mtSeed(mt, randomState);
  const shuffleSeed = mtRandint(mt, 0, 0x7fffffff);
  heap.free(mt);
  const order = heap.alloc(n << 2);
  for (let i: usize = 0; i < n; i++) store<i32>(order + (i << 2), <i32>i);
  const seedCell = heap.alloc(8);
  const w = heap.alloc(max<usize>(pp, 1) << 3);
  memory.copy(w, modelPtr, pp << 3);
  let wscale: f64 = 1.0;
  let intercept = load<f64>(modelPtr + (pp << 3));
  let t = load<f64>(modelPtr + ((pp + 1) << 3));
  let bestLoss: f64 = Infinity;
  let noImprovement = 0;
  let epochs = 0;
  let converged = false;
  let status = OK;
  for (let epoch = 0; epoch < maxIter; epoch++) {
    epochs = epoch + 1;
    let sumLoss: f64 = 0;
    store<u32>(seedCell, shuffleSeed);
    for (let i: u32 = 0; i < <u32>(n - 1); i++) {
      const j = i + (randR(seedCell) % (<u32>n - i));
      const pi = order + ((<usize>i) << 2);
      const pj = order + ((<usize>j) << 2);
      const tmp = load<i32>(pi);
      store<i32>(pi, load<i32>(pj));
      store<i32>(pj, tmp);
    }
    for (let i: usize = 0; i < n; i++) {
      const src = xr + <usize>load<i32>(order + (i << 2)) * rowBytes;
      const dst = epochRows + i * rowBytes;
      let o: usize = 0;
      for (; o + 16 <= rowBytes; o += 16) v128.store(dst + o, v128.load(src + o));
      if (o < rowBytes) store<f64>(dst + o, load<f64>(src + o));
    }
    for (let i: usize = 0; i < n; i++) {
      const x = epochRows + i * rowBytes;
      const y = load<f64>(x + (pp << 3));
      let dot: f64 = 0;
      for (let j: usize = 0; j < pp; j++) dot += load<f64>(w + (j << 3)) * load<f64>(x + (j << 3));
      const prediction = dot * wscale + intercept;
      const eta = eta0 / invscalingDenominator(t, powerT);
      const residual = prediction - y;
      sumLoss += 0.5 * residual * residual;
      let dloss = residual;
      if (dloss < -MAX_DLOSS) dloss = -MAX_DLOSS;
      else if (dloss > MAX_DLOSS) dloss = MAX_DLOSS;
      const update = -eta * dloss;
      wscale *= Math.max(0, 1.0 - eta * alpha);
      if (wscale < WSCALE_THRESHOLD) {
        scaleWeights(w, pp, wscale);
        wscale = 1.0;
      }
      if (update != 0) {
        const k = update / wscale;
        const kv = f64x2.splat(k);
        let j: usize = 0;
        for (; j + 2 <= pp; j += 2) {
          const wj = w + (j << 3);
          v128.store(wj, f64x2.add(v128.load(wj), f64x2.mul(v128.load(x + (j << 3)), kv)));
        }
        for (; j < pp; j++) store<f64>(w + (j << 3), load<f64>(w + (j << 3)) + load<f64>(x + (j << 3)) * k);
        intercept += update;
      }
      t += 1;
    }
    let finite = isFinite(intercept);
    for (let j: usize = 0; j < pp; j++) if (!isFinite(load<f64>(w + (j << 3)))) finite = false;
    if (!finite) {
      status = ERR_NOT_FINITE;
      break;
    }
    if (tol > -Infinity && sumLoss > bestLoss - tol * <f64>n) noImprovement++;
    else noImprovement = 0;
    if (sumLoss < bestLoss) bestLoss = sumLoss;
    if (noImprovement >= nIterNoChange) {
      converged = true;
      break;
    }
  }
  scaleWeights(w, pp, wscale);
  memory.copy(modelPtr, w, pp << 3);
  store<f64>(modelPtr + (pp << 3), intercept);
  store<f64>(modelPtr + ((pp + 1) << 3), t);
  store<f64>(modelPtr + ((pp + 2) << 3), <f64>epochs);
  store<f64>(modelPtr + ((pp + 3) << 3), converged ? 1.0 : 0.0);
  heap.free(w);
  heap.free(seedCell);
  heap.free(order);
  heap.free(epochRows);
  heap.free(xr);
  return status;
}

// t^power_t. For the default 0.25 (and 0.5) the square roots are used instead of pow: a quarter
// of the cost per sample, and within one ulp of pow (sklearn calls libm pow).
function invscalingDenominator(t: f64, powerT: f64): f64 {
  if (powerT == 0.25) return Math.sqrt(Math.sqrt(t));
  if (powerT == 0.5) return Math.sqrt(t);
  return Math.pow(t, powerT);
}

function scaleWeights(w: usize, pp: usize, s: f64): void {
  for (let j: usize = 0; j < pp; j++) store<f64>(w + (j << 3), load<f64>(w + (j << 3)) * s);
}
