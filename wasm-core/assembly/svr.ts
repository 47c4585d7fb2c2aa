// Epsilon-support vector regression with an RBF kernel, solved by SMO as libsvm does (Chang & Lin,
// "LIBSVM: a library for support vector machines"; working set selection WSS 3 of Fan, Chen & Lin
// 2005, "Working set selection using second order information"). Matches scikit-learn's
// SVR(kernel="rbf", C=1.0, epsilon=0.2, gamma="scale", tol=1e-3) of the reference's
// SVRRegressorTrainer.
//
// The dual has 2l variables (alpha+ for i < l with y = +1, alpha- for i >= l with y = -1),
// p = epsilon - y_i and epsilon + y_i, Q_ij = y_i y_j K(i mod l, j mod l), 0 <= alpha <= C. As in
// libsvm: the kernel rows are float32 (libsvm's Qfloat) computed as
// exp(-gamma (|x_i|^2 + |x_j|^2 - 2 x_i.x_j)); the gradient is float64; the pair update clips to the
// box exactly as Solver::Solve; stopping when m(alpha) - M(alpha) < tol; rho from the free variables
// (or the middle of the bounds). libsvm also shrinks the active set, which changes only the path, not
// the optimality condition the result satisfies; we do not shrink, so our solution is libsvm's
// within tol, not bit-identical. gamma "scale" = 1 / (features * Var(all X values)), 1 when the
// variance is 0 (sklearn). Coefficients are alpha+ - alpha-, support vectors those with a non-zero one.
//
// Kernel rows are computed on demand into a cache of float32 rows: the full l x l matrix when it fits
// the cache budget, otherwise the least recently used rows are recomputed.
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";

const TAU: f64 = 1e-12;
const LOWER: u8 = 0;
const UPPER: u8 = 1;
const FREE: u8 = 2;

// Parameter block (float64): C, epsilon, gamma (<= 0: "scale"), tol, cache bytes, max iterations
// (<= 0: libsvm's max(10^7, 100 * 2l)).
export const SVR_PARAMS: i32 = 6;
// Info block (float64): rho, gamma, iterations, converged (1/0), support vector count.
export const SVR_INFO: i32 = 5;

// ---- vectorised exp, fdlibm/musl's algorithm (e_exp.c): k = round(x / ln2), r = x - k ln2 in two
// parts, exp(r) = 1 + r + r c / (2 - c) with a degree-5 minimax c, times 2^k. Within 1 ulp for
// x in [-708, 709]; arguments below -708 give 0 (the kernel value is below 1e-307 there).
const LN2_HI: f64 = 6.9314718036912381649e-1;
const LN2_LO: f64 = 1.90821492927058770002e-10;
const INV_LN2: f64 = 1.442695040888963387;
const P1: f64 = 1.66666666666666019037e-1;
const P2: f64 = -2.77777777770155933842e-3;
const P3: f64 = 6.61375632143793436117e-5;
const P4: f64 = -1.6533902205465251539e-6;
const P5: f64 = 4.13813679705723846039e-8;

export function expF64x2(x: v128): v128 {
  const low = f64x2.lt(x, f64x2.splat(-708.0));
  const xs = f64x2.max(x, f64x2.splat(-708.0));
  const k = f64x2.nearest(f64x2.mul(xs, f64x2.splat(INV_LN2)));
  const hi = f64x2.sub(xs, f64x2.mul(k, f64x2.splat(LN2_HI)));
  const lo = f64x2.mul(k, f64x2.splat(LN2_LO));
  const r = f64x2.sub(hi, lo);
  const rr = f64x2.mul(r, r);
  let poly = f64x2.add(f64x2.splat(P4), f64x2.mul(rr, f64x2.splat(P5)));
  poly = f64x2.add(f64x2.splat(P3), f64x2.mul(rr, poly));
  poly = f64x2.add(f64x2.splat(P2), f64x2.mul(rr, poly));
  poly = f64x2.add(f64x2.splat(P1), f64x2.mul(rr, poly));
  const c = f64x2.sub(r, f64x2.mul(rr, poly));
  const one = f64x2.splat(1.0);
  const y = f64x2.add(one, f64x2.add(f64x2.sub(f64x2.div(f64x2.mul(r, c), f64x2.sub(f64x2.splat(2.0), c)), lo), hi));
  const kInt = i64x2.extend_low_i32x4_s(i32x4.trunc_sat_f64x2_s_zero(k));
  const scale = i64x2.shl(i64x2.add(kInt, i64x2.splat(1023)), 52);
  return v128.andnot(f64x2.mul(y, scale), low);
}

// ---- per-fit state (single-threaded, not re-entrant)
let gX: usize = 0; // column-major training rows
let gN: usize = 0;
let gP: usize = 0;
let gGamma: f64 = 0;
let gSq: usize = 0; // |x_i|^2
let gFull: bool = false;
let gCache: usize = 0; // float32 rows
let gSlots: usize = 0;
let gRowSlot: usize = 0; // i32 per row, -1 when not cached (full mode: u8 computed flag)
let gSlotRow: usize = 0; // i32 per slot
let gSlotStamp: usize = 0; // f64 per slot
let gClock: f64 = 0;

// K(r, j) for all j into out (float32).
function computeRow(r: usize, out: usize): void {
  const n = gN;
  const sqr = load<f64>(gSq + (r << 3));
  const mg = f64x2.splat(-gGamma);
  const sqrv = f64x2.splat(sqr);
  const two = f64x2.splat(2.0);
  let j: usize = 0;
  for (; j + 2 <= n; j += 2) {
    let dot = f64x2.splat(0);
    for (let f: usize = 0; f < gP; f++) {
      const col = gX + ((f * n) << 3);
      dot = f64x2.add(dot, f64x2.mul(f64x2.splat(load<f64>(col + (r << 3))), v128.load(col + (j << 3))));
    }
    const d = f64x2.sub(f64x2.add(sqrv, v128.load(gSq + (j << 3))), f64x2.mul(two, dot));
    const k = expF64x2(f64x2.mul(mg, d));
    v128.store64_lane(out + (j << 2), f32x4.demote_f64x2_zero(k), 0);
  }
  for (; j < n; j++) {
    let dot: f64 = 0;
    for (let f: usize = 0; f < gP; f++) {
      const col = gX + ((f * n) << 3);
      dot += load<f64>(col + (r << 3)) * load<f64>(col + (j << 3));
    }
    store<f32>(out + (j << 2), <f32>Math.exp(-gGamma * (sqr + load<f64>(gSq + (j << 3)) - 2.0 * dot)));
  }
}

// The float32 kernel row of training row r (valid until the next getRow in LRU mode, and the one
// before that: the two most recent rows are never evicted).
function getRow(r: usize): usize {
  if (gFull) {
    const row = gCache + ((r * gN) << 2);
    if (load<u8>(gRowSlot + r) == 0) {
      computeRow(r, row);
      store<u8>(gRowSlot + r, 1);
    }
    return row;
  }
  gClock += 1;
  const slot = load<i32>(gRowSlot + (r << 2));
  if (slot >= 0) {
    store<f64>(gSlotStamp + ((<usize>slot) << 3), gClock);
    return gCache + ((<usize>slot * gN) << 2);
  }
  let victim: usize = 0;
  let oldest: f64 = Infinity;
  for (let s: usize = 0; s < gSlots; s++) {
    const stamp = load<f64>(gSlotStamp + (s << 3));
    if (stamp < oldest) {
      oldest = stamp;
      victim = s;
    }
  }
  const previous = load<i32>(gSlotRow + (victim << 2));
  if (previous >= 0) store<i32>(gRowSlot + ((<usize>previous) << 2), -1);
  store<i32>(gSlotRow + (victim << 2), <i32>r);
  store<i32>(gRowSlot + (r << 2), <i32>victim);
  store<f64>(gSlotStamp + (victim << 3), gClock);
  const row = gCache + ((victim * gN) << 2);
  computeRow(r, row);
  return row;
}

function statusOf(alpha: f64, C: f64): u8 {
  return alpha >= C ? UPPER : alpha <= 0 ? LOWER : FREE;
}

/**
 * Fits epsilon-SVR on the rows x cols column-major matrix at xPtr and targets at yPtr with the
 * parameters at paramsPtr. Writes the support vectors column-major (nSV x cols, nSV = info[4]) to
 * svPtr (room for rows x cols), their coefficients (alpha+ - alpha-) to coefPtr (room for rows) and
 * the info block to infoPtr. Errors: ERR_TOO_FEW_ROWS (< 2 rows), ERR_NOT_FINITE (NaN/inf in x, y or
 * parameters), ERR_DIMENSION (cols < 1, C <= 0, epsilon < 0, tol <= 0).
 */
export function fitSvr(
  xPtr: usize,
  rows: i32,
  cols: i32,
  yPtr: usize,
  paramsPtr: usize,
  svPtr: usize,
  coefPtr: usize,
  infoPtr: usize,
): i32 {
  const C = load<f64>(paramsPtr);
  const epsilon = load<f64>(paramsPtr, 8);
  let gamma = load<f64>(paramsPtr, 16);
  const tol = load<f64>(paramsPtr, 24);
  const cacheBytes = load<f64>(paramsPtr, 32);
  const maxIterParam = load<f64>(paramsPtr, 40);
  if (cols < 1) return ERR_DIMENSION;
  if (!isFinite(C) || !isFinite(epsilon) || !isFinite(gamma) || !isFinite(tol) || isNaN(cacheBytes) || isNaN(maxIterParam))
    return ERR_NOT_FINITE;
  if (!(C > 0) || epsilon < 0 || !(tol > 0)) return ERR_DIMENSION;
  if (rows < 2) return ERR_TOO_FEW_ROWS;
  const n = <usize>rows;
  const p = <usize>cols;
  // gamma "scale": variance of all values (two passes, as numpy's var)
  let sum: f64 = 0;
  for (let k: usize = 0; k < n * p; k++) {
    const v = load<f64>(xPtr + (k << 3));
    if (!isFinite(v)) return ERR_NOT_FINITE;
    sum += v;
  }
  for (let i: usize = 0; i < n; i++) if (!isFinite(load<f64>(yPtr + (i << 3)))) return ERR_NOT_FINITE;
  if (gamma <= 0) {
    const mean = sum / <f64>(n * p);
    let ss: f64 = 0;
    for (let k: usize = 0; k < n * p; k++) {
      const d = load<f64>(xPtr + (k << 3)) - mean;
      ss += d * d;
    }
    const variance = ss / <f64>(n * p);
    gamma = variance != 0 ? 1.0 / (<f64>p * variance) : 1.0;
  }

  gX = xPtr;
  gN = n;
  gP = p;
  gGamma = gamma;
  gSq = heap.alloc(n << 3);
  for (let i: usize = 0; i < n; i++) {
    let s: f64 = 0;
    for (let f: usize = 0; f < p; f++) {
      const v = load<f64>(xPtr + ((f * n + i) << 3));
      s += v * v;
    }
    store<f64>(gSq + (i << 3), s);
  }
  const rowBytes = n << 2;
  gFull = <f64>(rowBytes * n) <= cacheBytes;
  gClock = 0;
  if (gFull) {
    gCache = heap.alloc(rowBytes * n);
    gRowSlot = heap.alloc(n);
    memory.fill(gRowSlot, 0, n);
    gSlots = n;
    gSlotRow = 0;
    gSlotStamp = 0;
  } else {
    gSlots = max<usize>(2, <usize>(cacheBytes / <f64>rowBytes));
    gCache = heap.alloc(rowBytes * gSlots);
    gRowSlot = heap.alloc(n << 2);
    memory.fill(gRowSlot, 0xff, n << 2);
    gSlotRow = heap.alloc(gSlots << 2);
    memory.fill(gSlotRow, 0xff, gSlots << 2);
    gSlotStamp = heap.alloc(gSlots << 3);
    memory.fill(gSlotStamp, 0, gSlots << 3);
  }

  const L = n << 1;
  const alpha = heap.alloc(L << 3);
  const G = heap.alloc(L << 3);
  const status = heap.alloc(L);
  memory.fill(alpha, 0, L << 3);
  memory.fill(status, LOWER, L);
  for (let i: usize = 0; i < n; i++) {
    const y = load<f64>(yPtr + (i << 3));
    store<f64>(G + (i << 3), epsilon - y);
    store<f64>(G + ((i + n) << 3), epsilon + y);
  }
  const maxIter: f64 = maxIterParam > 0 ? maxIterParam : Math.max(10000000, 100 * <f64>L);
  let iter: f64 = 0;
  let converged = false;
  while (iter < maxIter) {
    // WSS 3: i maximises -y_i G_i over I_up, j minimises the second-order objective over I_low
    let Gmax: f64 = -Infinity;
    let iIdx: isize = -1;
    for (let t: usize = 0; t < L; t++) {
      const st = load<u8>(status + t);
      const g = load<f64>(G + (t << 3));
      if (t < n) {
        if (st != UPPER && -g >= Gmax) {
          Gmax = -g;
          iIdx = <isize>t;
        }
      } else if (st != LOWER && g >= Gmax) {
        Gmax = g;
        iIdx = <isize>t;
      }
    }
    if (iIdx < 0) {
      converged = true;
      break;
    }
    const i = <usize>iIdx;
    const iReal = i < n ? i : i - n;
    const Ki = getRow(iReal);
    let Gmax2: f64 = -Infinity;
    let jIdx: isize = -1;
    let objMin: f64 = Infinity;
    for (let t: usize = 0; t < L; t++) {
      const st = load<u8>(status + t);
      const g = load<f64>(G + (t << 3));
      const tr = t < n ? t : t - n;
      if (t < n) {
        if (st != LOWER) {
          const gd = Gmax + g;
          if (g >= Gmax2) Gmax2 = g;
          if (gd > 0) {
            const quad = 2.0 - 2.0 * <f64>load<f32>(Ki + (tr << 2));
            const obj = quad > 0 ? -(gd * gd) / quad : -(gd * gd) / TAU;
            if (obj <= objMin) {
              jIdx = <isize>t;
              objMin = obj;
            }
          }
        }
      } else if (st != UPPER) {
        const gd = Gmax - g;
        if (-g >= Gmax2) Gmax2 = -g;
        if (gd > 0) {
          const quad = 2.0 - 2.0 * <f64>load<f32>(Ki + (tr << 2));
          const obj = quad > 0 ? -(gd * gd) / quad : -(gd * gd) / TAU;
          if (obj <= objMin) {
            jIdx = <isize>t;
            objMin = obj;
          }
        }
      }
    }
    if (Gmax + Gmax2 < tol || jIdx < 0) {
      converged = true;
      break;
    }
    iter += 1;
    const j = <usize>jIdx;
    const jReal = j < n ? j : j - n;
    const Kj = getRow(jReal);
    const yi: f64 = i < n ? 1.0 : -1.0;
    const yj: f64 = j < n ? 1.0 : -1.0;
    const Kij = <f64>load<f32>(Ki + (jReal << 2));
    const ai0 = load<f64>(alpha + (i << 3));
    const aj0 = load<f64>(alpha + (j << 3));
    const Gi = load<f64>(G + (i << 3));
    const Gj = load<f64>(G + (j << 3));
    let ai = ai0;
    let aj = aj0;
    // Q_ij = y_i y_j K_ij, QD = 1 (RBF)
    if (yi != yj) {
      let quad = 2.0 + 2.0 * (yi * yj * Kij);
      if (quad <= 0) quad = TAU;
      const delta = (-Gi - Gj) / quad;
      const diff = ai - aj;
      ai += delta;
      aj += delta;
      if (diff > 0) {
        if (aj < 0) {
          aj = 0;
          ai = diff;
        }
      } else if (ai < 0) {
        ai = 0;
        aj = -diff;
      }
      if (diff > 0) {
        if (ai > C) {
          ai = C;
          aj = C - diff;
        }
      } else if (aj > C) {
        aj = C;
        ai = C + diff;
      }
    } else {
      let quad = 2.0 - 2.0 * (yi * yj * Kij);
      if (quad <= 0) quad = TAU;
      const delta = (Gi - Gj) / quad;
      const total = ai + aj;
      ai -= delta;
      aj += delta;
      if (total > C) {
        if (ai > C) {
          ai = C;
          aj = total - C;
        }
      } else if (aj < 0) {
        aj = 0;
        ai = total;
      }
      if (total > C) {
        if (aj > C) {
          aj = C;
          ai = total - C;
        }
      } else if (ai < 0) {
        ai = 0;
        aj = total;
      }
    }
    store<f64>(alpha + (i << 3), ai);
    store<f64>(alpha + (j << 3), aj);
    store<u8>(status + i, statusOf(ai, C));
    store<u8>(status + j, statusOf(aj, C));
    // G_k += Q_ik dai + Q_jk daj for both halves: t = y_i K_ik dai + y_j K_jk daj, G+ += t, G- -= t
    const ci = f64x2.splat(yi * (ai - ai0));
    const cj = f64x2.splat(yj * (aj - aj0));
    let k: usize = 0;
    for (; k + 2 <= n; k += 2) {
      const ki = f64x2.promote_low_f32x4(v128.load64_zero(Ki + (k << 2)));
      const kj = f64x2.promote_low_f32x4(v128.load64_zero(Kj + (k << 2)));
      const t = f64x2.add(f64x2.mul(ki, ci), f64x2.mul(kj, cj));
      const gp = G + (k << 3);
      const gm = G + ((k + n) << 3);
      v128.store(gp, f64x2.add(v128.load(gp), t));
      v128.store(gm, f64x2.sub(v128.load(gm), t));
    }
    const si = yi * (ai - ai0);
    const sj = yj * (aj - aj0);
    for (; k < n; k++) {
      const t = <f64>load<f32>(Ki + (k << 2)) * si + <f64>load<f32>(Kj + (k << 2)) * sj;
      store<f64>(G + (k << 3), load<f64>(G + (k << 3)) + t);
      store<f64>(G + ((k + n) << 3), load<f64>(G + ((k + n) << 3)) - t);
    }
  }

  // rho (libsvm Solver::calculate_rho)
  let ub: f64 = Infinity;
  let lb: f64 = -Infinity;
  let freeCount: f64 = 0;
  let freeSum: f64 = 0;
  for (let t: usize = 0; t < L; t++) {
    const yt: f64 = t < n ? 1.0 : -1.0;
    const yG = yt * load<f64>(G + (t << 3));
    const st = load<u8>(status + t);
    if (st == UPPER) {
      if (yt < 0) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else if (st == LOWER) {
      if (yt > 0) ub = Math.min(ub, yG);
      else lb = Math.max(lb, yG);
    } else {
      freeCount += 1;
      freeSum += yG;
    }
  }
  const rho = freeCount > 0 ? freeSum / freeCount : (ub + lb) / 2;

  // support vectors: rows with a non-zero coefficient, in row order
  let nSv: usize = 0;
  for (let i: usize = 0; i < n; i++) {
    if (load<f64>(alpha + (i << 3)) - load<f64>(alpha + ((i + n) << 3)) != 0) nSv++;
  }
  let s: usize = 0;
  for (let i: usize = 0; i < n; i++) {
    const c = load<f64>(alpha + (i << 3)) - load<f64>(alpha + ((i + n) << 3));
    if (c == 0) continue;
    store<f64>(coefPtr + (s << 3), c);
    for (let f: usize = 0; f < p; f++) store<f64>(svPtr + ((f * nSv + s) << 3), load<f64>(xPtr + ((f * n + i) << 3)));
    s++;
  }
  store<f64>(infoPtr, rho);
  store<f64>(infoPtr, gamma, 8);
  store<f64>(infoPtr, iter, 16);
  store<f64>(infoPtr, converged ? 1.0 : 0.0, 24);
  store<f64>(infoPtr, <f64>nSv, 32);

  heap.free(alpha);
  heap.free(G);
  heap.free(status);
  heap.free(gSq);
  heap.free(gCache);
  heap.free(gRowSlot);
  if (gSlotRow != 0) heap.free(gSlotRow);
  if (gSlotStamp != 0) heap.free(gSlotStamp);
  gX = 0;
  gSq = 0;
  gCache = 0;
  gRowSlot = 0;
  gSlotRow = 0;
  gSlotStamp = 0;
  return OK;
}

/**
 * Predicts rows x cols (column-major at xPtr) with support vectors svPtr (nSv x cols, column-major),
 * coefficients coefPtr: out = sum_s coef_s exp(-gamma |sv_s - x|^2) + intercept.
 * Errors: ERR_DIMENSION (negative sizes), ERR_NOT_FINITE (NaN/inf in x, the model or gamma).
 */
export function predictSvr(
  svPtr: usize,
  nSv: i32,
  cols: i32,
  coefPtr: usize,
  intercept: f64,
  gamma: f64,
  xPtr: usize,
  rows: i32,
  outPtr: usize,
): i32 {
  if (nSv < 0 || cols < 0 || rows < 0) return ERR_DIMENSION;
  if (!isFinite(intercept) || !isFinite(gamma)) return ERR_NOT_FINITE;
  const m = <usize>nSv;
  const p = <usize>cols;
  const n = <usize>rows;
  for (let k: usize = 0; k < m * p; k++) if (!isFinite(load<f64>(svPtr + (k << 3)))) return ERR_NOT_FINITE;
  for (let k: usize = 0; k < m; k++) if (!isFinite(load<f64>(coefPtr + (k << 3)))) return ERR_NOT_FINITE;
  for (let k: usize = 0; k < n * p; k++) if (!isFinite(load<f64>(xPtr + (k << 3)))) return ERR_NOT_FINITE;
  const q = heap.alloc(max<usize>(8, p << 3));
  const mg = f64x2.splat(-gamma);
  for (let i: usize = 0; i < n; i++) {
    for (let f: usize = 0; f < p; f++) store<f64>(q + (f << 3), load<f64>(xPtr + ((f * n + i) << 3)));
    let acc = f64x2.splat(0);
    let s: usize = 0;
    for (; s + 2 <= m; s += 2) {
      let d2 = f64x2.splat(0);
      for (let f: usize = 0; f < p; f++) {
        const diff = f64x2.sub(v128.load(svPtr + ((f * m + s) << 3)), f64x2.splat(load<f64>(q + (f << 3))));
        d2 = f64x2.add(d2, f64x2.mul(diff, diff));
      }
      acc = f64x2.add(acc, f64x2.mul(v128.load(coefPtr + (s << 3)), expF64x2(f64x2.mul(mg, d2))));
    }
    let total = f64x2.extract_lane(acc, 0) + f64x2.extract_lane(acc, 1);
    for (; s < m; s++) {
      let d2: f64 = 0;
      for (let f: usize = 0; f < p; f++) {
        const diff = load<f64>(svPtr + ((f * m + s) << 3)) - load<f64>(q + (f << 3));
        d2 += diff * diff;
      }
      total += load<f64>(coefPtr + (s << 3)) * Math.exp(-gamma * d2);
    }
    store<f64>(outPtr + (i << 3), total + intercept);
  }
  heap.free(q);
  return OK;
}
