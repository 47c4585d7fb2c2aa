// Non-negative least squares by the active-set method of Lawson & Hanson (Solving Least Squares
// Problems, 1974, ch. 23), on the normal equations, as scipy.optimize.nnls (>= 1.12) runs it:
// AtA = A'A, Atb = A'b; maxiter = 3 n; tol = 10 * max(m, n) * eps; the passive set grows by the
// argmax of the dual w = Atb - AtA x over the active set while that maximum exceeds tol; inner loop:
// solve the passive subsystem, step back by the smallest alpha that keeps x >= 0, drop x <= tol.
// scikit-learn's LinearRegression(positive=True) calls nnls on the centred data; least-squares.ts
// passes the centred Gram matrix here. Subsystems are solved by solveSymmetricPsd (Cholesky, with
// the minimum-norm fallback when a subsystem is singular, where scipy would warn).
import { solveSymmetricPsd } from "./least-squares";
import { ERR_NOT_CONVERGED, OK } from "./status";

/**
 * Minimises |A x - b| subject to x >= 0 given AtA (n x n row-major at ataPtr) and Atb (n values),
 * for an A of m rows. Writes x (n values) to xPtr.
 */
export function nnlsGram(ataPtr: usize, atbPtr: usize, n: i32, m: i32, xPtr: usize): i32 {
  const nn = <usize>n;
  const tol = 10 * <f64>max(m, n) * f64.EPSILON;
  const maxIter = 3 * n;
  const passive = heap.alloc(nn);
  const s = heap.alloc(nn << 3);
  const w = heap.alloc(nn << 3);
  const sub = heap.alloc((nn * nn) << 3);
  const rhs = heap.alloc(nn << 3);
  const sol = heap.alloc(nn << 3);
  const idx = heap.alloc(nn << 2);
  memory.fill(passive, 0, nn);
  memory.fill(xPtr, 0, nn << 3);
  memory.copy(w, atbPtr, nn << 3);
  let iter = 0;
  let status = OK;
  while (true) {
    // pick the most violated constraint among the active set
    let k = -1;
    let best: f64 = -Infinity;
    let allPassive = true;
    for (let j: usize = 0; j < nn; j++) {
      if (load<u8>(passive + j) != 0) continue;
      allPassive = false;
      const wj = load<f64>(w + (j << 3));
      if (wj > best) {
        best = wj;
        k = <i32>j;
      }
    }
    if (allPassive || !(best > tol)) break;
    store<u8>(passive + <usize>k, 1);
    solvePassive(ataPtr, atbPtr, nn, passive, sub, rhs, sol, idx, s);
    let exhausted = false;
    while (true) {
      let minS: f64 = Infinity;
      for (let j: usize = 0; j < nn; j++) if (load<u8>(passive + j) != 0) minS = Math.min(minS, load<f64>(s + (j << 3)));
      if (!(minS < 0)) break;
      if (iter >= maxIter) {
        exhausted = true;
        break;
      }
      iter++;
      let alpha: f64 = Infinity;
      for (let j: usize = 0; j < nn; j++) {
        const sj = load<f64>(s + (j << 3));
        if (load<u8>(passive + j) != 0 && sj < 0) {
          const xj = load<f64>(xPtr + (j << 3));
          alpha = Math.min(alpha, xj / (xj - sj));
        }
      }
      for (let j: usize = 0; j < nn; j++) {
        const xj = load<f64>(xPtr + (j << 3)) * (1 - alpha) + alpha * load<f64>(s + (j << 3));
        store<f64>(xPtr + (j << 3), xj);
        if (xj <= tol) store<u8>(passive + j, 0);
      }
      solvePassive(ataPtr, atbPtr, nn, passive, sub, rhs, sol, idx, s);
    }
    memory.copy(xPtr, s, nn << 3);
    for (let i: usize = 0; i < nn; i++) {
      let v = load<f64>(atbPtr + (i << 3));
      for (let j: usize = 0; j < nn; j++) v -= load<f64>(ataPtr + ((i * nn + j) << 3)) * load<f64>(xPtr + (j << 3));
      store<f64>(w + (i << 3), v);
    }
    if (exhausted) {
      status = ERR_NOT_CONVERGED;
      break;
    }
  }
  heap.free(idx);
  heap.free(sol);
  heap.free(rhs);
  heap.free(sub);
  heap.free(w);
  heap.free(s);
  heap.free(passive);
  return status;
}

// s := 0 outside the passive set, and the solution of AtA[P,P] s[P] = Atb[P] inside it.
function solvePassive(
  ata: usize,
  atb: usize,
  nn: usize,
  passive: usize,
  sub: usize,
  rhs: usize,
  sol: usize,
  idx: usize,
  s: usize,
): void {
  let m: usize = 0;
  for (let j: usize = 0; j < nn; j++) {
    if (load<u8>(passive + j) != 0) {
      store<i32>(idx + (m << 2), <i32>j);
      m++;
    }
  }
  for (let a: usize = 0; a < m; a++) {
    const i = <usize>load<i32>(idx + (a << 2));
    for (let b: usize = 0; b < m; b++) {
      const j = <usize>load<i32>(idx + (b << 2));
      store<f64>(sub + ((a * m + b) << 3), load<f64>(ata + ((i * nn + j) << 3)));
    }
    store<f64>(rhs + (a << 3), load<f64>(atb + (i << 3)));
  }
  memory.fill(s, 0, nn << 3);
  if (solveSymmetricPsd(sub, <i32>m, rhs, sol) != OK) return;
  for (let a: usize = 0; a < m; a++) store<f64>(s + ((<usize>load<i32>(idx + (a << 2))) << 3), load<f64>(sol + (a << 3)));
}
