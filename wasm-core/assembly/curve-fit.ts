// Levenberg-Marquardt curve fits of one feature, as scipy.optimize.curve_fit(f, x, y, p0,
// maxfev=30000) runs them for the reference's Logarithmic/Exponential/LogisticRegressionTrainer.
//
// curve_fit without bounds calls leastsq, i.e. MINPACK lmdif (Moré, Garbow & Hillstrom, ANL-80-74,
// 1980; Moré, "The Levenberg-Marquardt algorithm: implementation and theory", 1978). This is an
// independent implementation of that algorithm with scipy's settings: forward-difference Jacobian
// (step sqrt(eps) * |p_j|, or sqrt(eps) when p_j = 0), QR with column pivoting, the trust-region
// parameter search of lmpar with Givens-rotation solves (qrsolv), mode 1 scaling (diag = running
// maximum of the Jacobian column norms), factor 100, ftol = xtol = 1.49012e-8, gtol = 0, maxfev
// counting every function evaluation including the Jacobian's. Residuals are f(x; p) - y.
// Models (kind): 0 logarithmic a*ln(b*x+1)+c, 1 exponential a*exp(b*x)+c,
// 2 logistic A/(1+exp(-k*(x-x0)))+off with p = [A, x0, k, off].
// The info code is lmdif's: 1-4 converged (relative reduction, relative step, both, orthogonality),
// 5 maxfev reached, 6-8 tolerances too small; we add 9: the Jacobian became non-finite.
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_TOO_FEW_ROWS, OK } from "./status";

export const CURVE_LOGARITHMIC: i32 = 0;
export const CURVE_EXPONENTIAL: i32 = 1;
export const CURVE_LOGISTIC: i32 = 2;

const EPSMCH: f64 = f64.EPSILON;
const DWARF: f64 = 2.2250738585072014e-308;

/** Number of parameters of a curve kind, or -1 for an unknown kind. */
export function curveParameterCount(kind: i32): i32 {
  if (kind == CURVE_LOGARITHMIC || kind == CURVE_EXPONENTIAL) return 3;
  if (kind == CURVE_LOGISTIC) return 4;
  return -1;
}

function curveValue(kind: i32, p: usize, x: f64): f64 {
  if (kind == CURVE_LOGARITHMIC) return load<f64>(p) * Math.log(load<f64>(p, 8) * x + 1) + load<f64>(p, 16);
  if (kind == CURVE_EXPONENTIAL) return load<f64>(p) * Math.exp(load<f64>(p, 8) * x) + load<f64>(p, 16);
  return load<f64>(p) / (1 + Math.exp(-load<f64>(p, 16) * (x - load<f64>(p, 8)))) + load<f64>(p, 24);
}

/** Writes f(x_i; parameters) for n points to outPtr. */
export function predictCurve(kind: i32, parametersPtr: usize, xPtr: usize, n: i32, outPtr: usize): i32 {
  if (curveParameterCount(kind) < 0 || n < 0) return ERR_DIMENSION;
  for (let i: usize = 0; i < <usize>n; i++)
    store<f64>(outPtr + (i << 3), curveValue(kind, parametersPtr, load<f64>(xPtr + (i << 3))));
  return OK;
}

function residuals(kind: i32, p: usize, x: usize, y: usize, m: usize, out: usize): void {
  for (let i: usize = 0; i < m; i++)
    store<f64>(out + (i << 3), curveValue(kind, p, load<f64>(x + (i << 3))) - load<f64>(y + (i << 3)));
}

// Euclidean norm; rescaled when the plain sum of squares over- or underflows.
function enorm(n: usize, v: usize): f64 {
  let s: f64 = 0;
  for (let i: usize = 0; i < n; i++) {
    const a = load<f64>(v + (i << 3));
    s += a * a;
  }
  if (s < Infinity && s > 1e-290) return Math.sqrt(s);
  let big: f64 = 0;
  for (let i: usize = 0; i < n; i++) big = Math.max(big, Math.abs(load<f64>(v + (i << 3))));
  if (big == 0 || !(big < Infinity)) return big;
  s = 0;
  for (let i: usize = 0; i < n; i++) {
    const a = load<f64>(v + (i << 3)) / big;
    s += a * a;
  }
  return big * Math.sqrt(s);
}

// column-major m x n matrix access
function at(a: usize, m: usize, i: usize, j: usize): usize {
  return a + ((j * m + i) << 3);
}

// Householder QR with column pivoting (MINPACK qrfac, pivot = true).
function qrfac(m: usize, n: usize, a: usize, ipvt: usize, rdiag: usize, acnorm: usize, wa: usize): void {
  for (let j: usize = 0; j < n; j++) {
    const norm = enorm(m, at(a, m, 0, j));
    store<f64>(acnorm + (j << 3), norm);
    store<f64>(rdiag + (j << 3), norm);
    store<f64>(wa + (j << 3), norm);
    store<i32>(ipvt + (j << 2), <i32>j);
  }
  const minmn = min(m, n);
  for (let j: usize = 0; j < minmn; j++) {
    let kmax = j;
    for (let k = j; k < n; k++) if (load<f64>(rdiag + (k << 3)) > load<f64>(rdiag + (kmax << 3))) kmax = k;
    if (kmax != j) {
      for (let i: usize = 0; i < m; i++) {
        const t = load<f64>(at(a, m, i, j));
        store<f64>(at(a, m, i, j), load<f64>(at(a, m, i, kmax)));
        store<f64>(at(a, m, i, kmax), t);
      }
      store<f64>(rdiag + (kmax << 3), load<f64>(rdiag + (j << 3)));
      store<f64>(wa + (kmax << 3), load<f64>(wa + (j << 3)));
      const t = load<i32>(ipvt + (j << 2));
      store<i32>(ipvt + (j << 2), load<i32>(ipvt + (kmax << 2)));
      store<i32>(ipvt + (kmax << 2), t);
    }
    let ajnorm = enorm(m - j, at(a, m, j, j));
    if (ajnorm != 0) {
      if (load<f64>(at(a, m, j, j)) < 0) ajnorm = -ajnorm;
      for (let i = j; i < m; i++) store<f64>(at(a, m, i, j), load<f64>(at(a, m, i, j)) / ajnorm);
      store<f64>(at(a, m, j, j), load<f64>(at(a, m, j, j)) + 1);
      for (let k = j + 1; k < n; k++) {
        let sum: f64 = 0;
        for (let i = j; i < m; i++) sum += load<f64>(at(a, m, i, j)) * load<f64>(at(a, m, i, k));
        const temp = sum / load<f64>(at(a, m, j, j));
        for (let i = j; i < m; i++) store<f64>(at(a, m, i, k), load<f64>(at(a, m, i, k)) - temp * load<f64>(at(a, m, i, j)));
        const rk = load<f64>(rdiag + (k << 3));
        if (rk != 0) {
          const t = load<f64>(at(a, m, j, k)) / rk;
          const nr = rk * Math.sqrt(Math.max(0, 1 - t * t));
          store<f64>(rdiag + (k << 3), nr);
          const ratio = nr / load<f64>(wa + (k << 3));
          if (0.05 * ratio * ratio <= EPSMCH) {
            const fresh = enorm(m - j - 1, at(a, m, j + 1, k));
            store<f64>(rdiag + (k << 3), fresh);
            store<f64>(wa + (k << 3), fresh);
          }
        }
      }
    }
    store<f64>(rdiag + (j << 3), -ajnorm);
  }
}

// Solves the damped least-squares subproblem with Givens rotations (MINPACK qrsolv). r is the
// n x n upper-left block of the column-major array with leading dimension ldr.
function qrsolv(n: usize, r: usize, ldr: usize, ipvt: usize, diag: usize, qtb: usize, x: usize, sdiag: usize, wa: usize): void {
  for (let j: usize = 0; j < n; j++) {
    for (let i = j; i < n; i++) store<f64>(at(r, ldr, i, j), load<f64>(at(r, ldr, j, i)));
    store<f64>(x + (j << 3), load<f64>(at(r, ldr, j, j)));
    store<f64>(wa + (j << 3), load<f64>(qtb + (j << 3)));
  }
  for (let j: usize = 0; j < n; j++) {
    const l = <usize>load<i32>(ipvt + (j << 2));
    const dl = load<f64>(diag + (l << 3));
    if (dl != 0) {
      for (let k = j; k < n; k++) store<f64>(sdiag + (k << 3), 0);
      store<f64>(sdiag + (j << 3), dl);
      let qtbpj: f64 = 0;
      for (let k = j; k < n; k++) {
        const sk = load<f64>(sdiag + (k << 3));
        if (sk == 0) continue;
        const rkk = load<f64>(at(r, ldr, k, k));
        let sin: f64;
        let cos: f64;
        if (Math.abs(rkk) < Math.abs(sk)) {
          const cotan = rkk / sk;
          sin = 0.5 / Math.sqrt(0.25 + 0.25 * cotan * cotan);
          cos = sin * cotan;
        } else {
          const tan = sk / rkk;
          cos = 0.5 / Math.sqrt(0.25 + 0.25 * tan * tan);
          sin = cos * tan;
        }
        store<f64>(at(r, ldr, k, k), cos * rkk + sin * sk);
        const wk = load<f64>(wa + (k << 3));
        store<f64>(wa + (k << 3), cos * wk + sin * qtbpj);
        qtbpj = -sin * wk + cos * qtbpj;
        for (let i = k + 1; i < n; i++) {
          const rik = load<f64>(at(r, ldr, i, k));
          const si = load<f64>(sdiag + (i << 3));
          store<f64>(at(r, ldr, i, k), cos * rik + sin * si);
          store<f64>(sdiag + (i << 3), -sin * rik + cos * si);
        }
      }
    }
    store<f64>(sdiag + (j << 3), load<f64>(at(r, ldr, j, j)));
    store<f64>(at(r, ldr, j, j), load<f64>(x + (j << 3)));
  }
  let nsing = n;
  for (let j: usize = 0; j < n; j++) {
    if (load<f64>(sdiag + (j << 3)) == 0 && nsing == n) nsing = j;
    if (nsing < n) store<f64>(wa + (j << 3), 0);
  }
  for (let jj = <i32>nsing - 1; jj >= 0; jj--) {
    const j = <usize>jj;
    let sum: f64 = 0;
    for (let i = j + 1; i < nsing; i++) sum += load<f64>(at(r, ldr, i, j)) * load<f64>(wa + (i << 3));
    store<f64>(wa + (j << 3), (load<f64>(wa + (j << 3)) - sum) / load<f64>(sdiag + (j << 3)));
  }
  for (let j: usize = 0; j < n; j++) store<f64>(x + ((<usize>load<i32>(ipvt + (j << 2))) << 3), load<f64>(wa + (j << 3)));
}

// Levenberg-Marquardt parameter for the trust region delta (MINPACK lmpar). Returns par; x gets
// the step (to be negated by the caller), sdiag the diagonal of S.
function lmpar(
  n: usize,
  r: usize,
  ldr: usize,
  ipvt: usize,
  diag: usize,
  qtb: usize,
  delta: f64,
  parIn: f64,
  x: usize,
  sdiag: usize,
  wa1: usize,
  wa2: usize,
): f64 {
  let par = parIn;
  let nsing = n;
  for (let j: usize = 0; j < n; j++) {
    store<f64>(wa1 + (j << 3), load<f64>(qtb + (j << 3)));
    if (load<f64>(at(r, ldr, j, j)) == 0 && nsing == n) nsing = j;
    if (nsing < n) store<f64>(wa1 + (j << 3), 0);
  }
  for (let jj = <i32>nsing - 1; jj >= 0; jj--) {
    const j = <usize>jj;
    const v = load<f64>(wa1 + (j << 3)) / load<f64>(at(r, ldr, j, j));
    store<f64>(wa1 + (j << 3), v);
    for (let i: usize = 0; i < j; i++) store<f64>(wa1 + (i << 3), load<f64>(wa1 + (i << 3)) - load<f64>(at(r, ldr, i, j)) * v);
  }
  for (let j: usize = 0; j < n; j++) store<f64>(x + ((<usize>load<i32>(ipvt + (j << 2))) << 3), load<f64>(wa1 + (j << 3)));
  for (let j: usize = 0; j < n; j++) store<f64>(wa2 + (j << 3), load<f64>(diag + (j << 3)) * load<f64>(x + (j << 3)));
  let dxnorm = enorm(n, wa2);
  let fp = dxnorm - delta;
  if (fp <= 0.1 * delta) return 0;
  let parl: f64 = 0;
  if (nsing >= n) {
    for (let j: usize = 0; j < n; j++) {
      const l = <usize>load<i32>(ipvt + (j << 2));
      store<f64>(wa1 + (j << 3), load<f64>(diag + (l << 3)) * (load<f64>(wa2 + (l << 3)) / dxnorm));
    }
    for (let j: usize = 0; j < n; j++) {
      let sum: f64 = 0;
      for (let i: usize = 0; i < j; i++) sum += load<f64>(at(r, ldr, i, j)) * load<f64>(wa1 + (i << 3));
      store<f64>(wa1 + (j << 3), (load<f64>(wa1 + (j << 3)) - sum) / load<f64>(at(r, ldr, j, j)));
    }
    const temp = enorm(n, wa1);
    parl = fp / delta / temp / temp;
  }
  for (let j: usize = 0; j < n; j++) {
    let sum: f64 = 0;
    for (let i: usize = 0; i <= j; i++) sum += load<f64>(at(r, ldr, i, j)) * load<f64>(qtb + (i << 3));
    const l = <usize>load<i32>(ipvt + (j << 2));
    store<f64>(wa1 + (j << 3), sum / load<f64>(diag + (l << 3)));
  }
  const gnorm = enorm(n, wa1);
  let paru = gnorm / delta;
  if (paru == 0) paru = DWARF / Math.min(delta, 0.1);
  par = Math.max(par, parl);
  par = Math.min(par, paru);
  if (par == 0) par = gnorm / dxnorm;
  let iter = 0;
  while (true) {
    iter++;
    if (par == 0) par = Math.max(DWARF, 0.001 * paru);
    const sp = Math.sqrt(par);
    for (let j: usize = 0; j < n; j++) store<f64>(wa1 + (j << 3), sp * load<f64>(diag + (j << 3)));
    qrsolv(n, r, ldr, ipvt, wa1, qtb, x, sdiag, wa2);
    for (let j: usize = 0; j < n; j++) store<f64>(wa2 + (j << 3), load<f64>(diag + (j << 3)) * load<f64>(x + (j << 3)));
    dxnorm = enorm(n, wa2);
    const previous = fp;
    fp = dxnorm - delta;
    if (Math.abs(fp) <= 0.1 * delta || (parl == 0 && fp <= previous && previous < 0) || iter == 10) break;
    for (let j: usize = 0; j < n; j++) {
      const l = <usize>load<i32>(ipvt + (j << 2));
      store<f64>(wa1 + (j << 3), load<f64>(diag + (l << 3)) * (load<f64>(wa2 + (l << 3)) / dxnorm));
    }
    for (let j: usize = 0; j < n; j++) {
      const v = load<f64>(wa1 + (j << 3)) / load<f64>(sdiag + (j << 3));
      store<f64>(wa1 + (j << 3), v);
      for (let i = j + 1; i < n; i++) store<f64>(wa1 + (i << 3), load<f64>(wa1 + (i << 3)) - load<f64>(at(r, ldr, i, j)) * v);
    }
    const temp = enorm(n, wa1);
    const parc = fp / delta / temp / temp;
    if (fp > 0) parl = Math.max(parl, par);
    if (fp < 0) paru = Math.min(paru, par);
    par = Math.max(parl, par + parc);
  }
  return par;
}

/**
 * Fits curve `kind` to m points (x, y) from the initial parameters at pPtr (overwritten with the
 * result). resultPtr receives [info, evaluations]. Returns OK whenever lmdif ran (check info),
 * ERR_NOT_FINITE for non-finite data, start or initial residuals.
 */
export function fitCurve(kind: i32, xPtr: usize, yPtr: usize, m: i32, pPtr: usize, maxfev: i32, resultPtr: usize): i32 {
  const np = curveParameterCount(kind);
  if (np < 0 || m < 0 || maxfev <= 0) return ERR_DIMENSION;
  if (m < np) return ERR_TOO_FEW_ROWS;
  const n = <usize>np;
  const mm = <usize>m;
  for (let i: usize = 0; i < mm; i++) {
    if (!isFinite(load<f64>(xPtr + (i << 3))) || !isFinite(load<f64>(yPtr + (i << 3)))) return ERR_NOT_FINITE;
  }
  for (let j: usize = 0; j < n; j++) if (!isFinite(load<f64>(pPtr + (j << 3)))) return ERR_NOT_FINITE;
  const ftol: f64 = 1.49012e-8;
  const xtol: f64 = 1.49012e-8;
  const gtol: f64 = 0;
  const fvec = heap.alloc(mm << 3);
  const wa4 = heap.alloc(mm << 3);
  const fjac = heap.alloc((mm * n) << 3);
  const small = heap.alloc((n * 8) << 3);
  const diag = small;
  const qtf = small + (n << 3);
  const wa1 = small + (n << 4);
  const wa2 = wa1 + (n << 3);
  const wa3 = wa2 + (n << 3);
  const xTrial = wa3 + (n << 3);
  const ipvt = heap.alloc(n << 2);
  residuals(kind, pPtr, xPtr, yPtr, mm, fvec);
  let nfev = 1;
  let fnorm = enorm(mm, fvec);
  if (!isFinite(fnorm)) {
    heap.free(ipvt);
    heap.free(small);
    heap.free(fjac);
    heap.free(wa4);
    heap.free(fvec);
    return ERR_NOT_FINITE;
  }
  let par: f64 = 0;
  let iter = 1;
  let info = 0;
  let delta: f64 = 0;
  let xnorm: f64 = 0;
  const epsStep = Math.sqrt(EPSMCH);
  let stop = false;
  while (!stop) {
    // forward-difference Jacobian
    for (let j: usize = 0; j < n; j++) {
      const pj = pPtr + (j << 3);
      const temp = load<f64>(pj);
      let h = epsStep * Math.abs(temp);
      if (h == 0) h = epsStep;
      store<f64>(pj, temp + h);
      residuals(kind, pPtr, xPtr, yPtr, mm, wa4);
      store<f64>(pj, temp);
      for (let i: usize = 0; i < mm; i++) {
        const v = (load<f64>(wa4 + (i << 3)) - load<f64>(fvec + (i << 3))) / h;
        if (!isFinite(v)) info = 9;
        store<f64>(at(fjac, mm, i, j), v);
      }
    }
    nfev += np;
    if (info != 0) break;
    qrfac(mm, n, fjac, ipvt, wa1, wa2, wa3);
    if (iter == 1) {
      for (let j: usize = 0; j < n; j++) {
        const a = load<f64>(wa2 + (j << 3));
        store<f64>(diag + (j << 3), a == 0 ? 1.0 : a);
      }
      for (let j: usize = 0; j < n; j++) store<f64>(wa3 + (j << 3), load<f64>(diag + (j << 3)) * load<f64>(pPtr + (j << 3)));
      xnorm = enorm(n, wa3);
      delta = 100 * xnorm;
      if (delta == 0) delta = 100;
    }
    // qtf = first n entries of Q' fvec
    memory.copy(wa4, fvec, mm << 3);
    for (let j: usize = 0; j < n; j++) {
      const ajj = load<f64>(at(fjac, mm, j, j));
      if (ajj != 0) {
        let sum: f64 = 0;
        for (let i = j; i < mm; i++) sum += load<f64>(at(fjac, mm, i, j)) * load<f64>(wa4 + (i << 3));
        const temp = -sum / ajj;
        for (let i = j; i < mm; i++) store<f64>(wa4 + (i << 3), load<f64>(wa4 + (i << 3)) + load<f64>(at(fjac, mm, i, j)) * temp);
      }
      store<f64>(at(fjac, mm, j, j), load<f64>(wa1 + (j << 3)));
      store<f64>(qtf + (j << 3), load<f64>(wa4 + (j << 3)));
    }
    let gnorm: f64 = 0;
    if (fnorm != 0) {
      for (let j: usize = 0; j < n; j++) {
        const l = <usize>load<i32>(ipvt + (j << 2));
        const cn = load<f64>(wa2 + (l << 3));
        if (cn != 0) {
          let sum: f64 = 0;
          for (let i: usize = 0; i <= j; i++) sum += load<f64>(at(fjac, mm, i, j)) * (load<f64>(qtf + (i << 3)) / fnorm);
          gnorm = Math.max(gnorm, Math.abs(sum / cn));
        }
      }
    }
    if (gnorm <= gtol) info = 4;
    if (info != 0) break;
    for (let j: usize = 0; j < n; j++)
      store<f64>(diag + (j << 3), Math.max(load<f64>(diag + (j << 3)), load<f64>(wa2 + (j << 3))));
    while (true) {
      par = lmpar(n, fjac, mm, ipvt, diag, qtf, delta, par, wa1, wa2, wa3, wa4);
      for (let j: usize = 0; j < n; j++) {
        const step = -load<f64>(wa1 + (j << 3));
        store<f64>(wa1 + (j << 3), step);
        store<f64>(xTrial + (j << 3), load<f64>(pPtr + (j << 3)) + step);
        store<f64>(wa3 + (j << 3), load<f64>(diag + (j << 3)) * step);
      }
      const pnorm = enorm(n, wa3);
      if (iter == 1) delta = Math.min(delta, pnorm);
      residuals(kind, xTrial, xPtr, yPtr, mm, wa4);
      nfev++;
      const fnorm1 = enorm(mm, wa4);
      let actred: f64 = -1;
      if (0.1 * fnorm1 < fnorm) actred = 1 - (fnorm1 / fnorm) * (fnorm1 / fnorm);
      for (let j: usize = 0; j < n; j++) {
        store<f64>(wa3 + (j << 3), 0);
        const temp = load<f64>(wa1 + ((<usize>load<i32>(ipvt + (j << 2))) << 3));
        for (let i: usize = 0; i <= j; i++)
          store<f64>(wa3 + (i << 3), load<f64>(wa3 + (i << 3)) + load<f64>(at(fjac, mm, i, j)) * temp);
      }
      const temp1 = enorm(n, wa3) / fnorm;
      const temp2 = (Math.sqrt(par) * pnorm) / fnorm;
      const prered = temp1 * temp1 + (temp2 * temp2) / 0.5;
      const dirder = -(temp1 * temp1 + temp2 * temp2);
      let ratio: f64 = 0;
      if (prered != 0) ratio = actred / prered;
      if (ratio <= 0.25) {
        let temp: f64 = actred >= 0 ? 0.5 : (0.5 * dirder) / (dirder + 0.5 * actred);
        if (0.1 * fnorm1 >= fnorm || temp < 0.1) temp = 0.1;
        delta = temp * Math.min(delta, pnorm / 0.1);
        par = par / temp;
      } else if (par == 0 || ratio >= 0.75) {
        delta = pnorm / 0.5;
        par = 0.5 * par;
      }
      if (ratio >= 1e-4) {
        for (let j: usize = 0; j < n; j++) {
          const v = load<f64>(xTrial + (j << 3));
          store<f64>(pPtr + (j << 3), v);
          store<f64>(wa2 + (j << 3), load<f64>(diag + (j << 3)) * v);
        }
        memory.copy(fvec, wa4, mm << 3);
        xnorm = enorm(n, wa2);
        fnorm = fnorm1;
        iter++;
      }
      if (Math.abs(actred) <= ftol && prered <= ftol && 0.5 * ratio <= 1) info = 1;
      if (delta <= xtol * xnorm) info = info == 1 ? 3 : 2;
      if (info != 0) {
        stop = true;
        break;
      }
      if (nfev >= maxfev) info = 5;
      if (Math.abs(actred) <= EPSMCH && prered <= EPSMCH && 0.5 * ratio <= 1) info = 6;
      if (delta <= EPSMCH * xnorm) info = 7;
      if (gnorm <= EPSMCH) info = 8;
      if (info != 0) {
        stop = true;
        break;
      }
      if (ratio >= 1e-4) break;
    }
  }
  store<f64>(resultPtr, <f64>info);
  store<f64>(resultPtr + 8, <f64>nfev);
  heap.free(ipvt);
  heap.free(small);
  heap.free(fjac);
  heap.free(wa4);
  heap.free(fvec);
  return OK;
}
