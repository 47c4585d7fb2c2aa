// Linear least squares with an intercept, as scikit-learn's LinearRegression(fit_intercept=True)
// used by the reference's LinearRegressionTrainer (positive=True) and PolynomialRegressionTrainer
// (after PolynomialFeatures(degree=2)).
//
// sklearn centres X and y by their means, solves the centred problem (scipy.linalg.lstsq, LAPACK
// gelsd: the minimum-norm solution; or scipy.optimize.nnls when positive=True) and sets
// intercept = mean(y) - mean(X) . coef. We do the same through the normal equations of the centred
// data (Golub & Van Loan, Matrix Computations, 4th ed., sections 4.2 and 5.3):
// - One pass sums the columns (means, and min/max to find constant columns), a second pass centres
//   row chunks in a small scratch block and accumulates the Gram matrix [X y]'[X y] with a 2x4
//   register-blocked f64x2 kernel. A large X is read twice and never copied.
// - A column that is exactly constant centres to zero: its coefficient is 0, which is what the
//   minimum-norm solution gives (the bias column of the polynomial expansion is such a column).
// - The remaining system is equilibrated (unit diagonal) and solved by Cholesky. If a pivot falls
//   below n * eps of the largest, the matrix is numerically rank deficient and we fall back to the
//   cyclic Jacobi eigen-decomposition (Golub & Van Loan 8.5) and apply the pseudo-inverse, dropping
//   eigenvalues below n * eps * max: the minimum-norm solution, as gelsd gives up to its cutoff.
// - positive=True runs Lawson-Hanson NNLS on the same Gram matrix (nnls.ts).
// design = 0 uses the columns of X as given; design = 1 expands them to degree 2 on the fly
// (polynomial.ts), which equals PolynomialFeatures followed by the fit, without the wide matrix.
import { nnlsGram } from "./nnls";
import { polynomialFill, polynomialWidth } from "./polynomial";
import { ERR_DIMENSION, ERR_NOT_FINITE, ERR_SINGULAR, ERR_TOO_FEW_ROWS, OK } from "./status";

export const DESIGN_AS_IS: i32 = 0;
export const DESIGN_POLYNOMIAL_2: i32 = 1;

const CHUNK: i32 = 256;
const CHUNK_BYTES: usize = (<usize>CHUNK) << 3;

/** Number of model columns for a design over p input columns. */
export function designWidth(design: i32, p: i32): i32 {
  return design == DESIGN_POLYNOMIAL_2 ? polynomialWidth(p) : p;
}

/** Writes rows [r0, r0+len) of the design matrix into scratch, column stride CHUNK. */
export function fillDesign(design: i32, xPtr: usize, rows: i32, p: i32, r0: i32, len: i32, scratch: usize): void {
  if (design == DESIGN_POLYNOMIAL_2) {
    polynomialFill(xPtr, rows, p, r0, len, scratch, CHUNK);
    return;
  }
  for (let c = 0; c < p; c++) {
    memory.copy(scratch + <usize>c * CHUNK_BYTES, xPtr + ((<usize>c * <usize>rows + <usize>r0) << 3), (<usize>len) << 3);
  }
}

function hsum(v: v128): f64 {
  return f64x2.extract_lane(v, 0) + f64x2.extract_lane(v, 1);
}

/**
 * Accumulates the centred Gram matrix of [design(X) y]: gram (qa x qa row-major, qa = q + 1, y last),
 * means (qa values) and isConstant (q bytes: 1 when the column's min equals its max).
 */
function centredGram(
  design: i32,
  xPtr: usize,
  rows: i32,
  p: i32,
  yPtr: usize,
  q: i32,
  meansPtr: usize,
  gramPtr: usize,
  constantPtr: usize,
): i32 {
  const qa = q + 1;
  const qe = (qa + 3) & ~3;
  const scratch = heap.alloc(<usize>qe * CHUNK_BYTES);
  memory.fill(scratch, 0, <usize>qe * CHUNK_BYTES);
  const minMax = heap.alloc((<usize>qa) << 4);
  for (let c = 0; c < qa; c++) {
    store<f64>(meansPtr + ((<usize>c) << 3), 0);
    store<f64>(minMax + ((<usize>c) << 4), Infinity);
    store<f64>(minMax + ((<usize>c) << 4) + 8, -Infinity);
  }
  // pass 1: sums, minima, maxima
  for (let r0 = 0; r0 < rows; r0 += CHUNK) {
    const len = min(CHUNK, rows - r0);
    fillDesign(design, xPtr, rows, p, r0, len, scratch);
    memory.copy(scratch + <usize>q * CHUNK_BYTES, yPtr + ((<usize>r0) << 3), (<usize>len) << 3);
    for (let c = 0; c < qa; c++) {
      const col = scratch + <usize>c * CHUNK_BYTES;
      let s = f64x2.splat(0);
      let lo = f64x2.splat(Infinity);
      let hi = f64x2.splat(-Infinity);
      let r = 0;
      for (; r + 2 <= len; r += 2) {
        const v = v128.load(col + ((<usize>r) << 3));
        s = f64x2.add(s, v);
        lo = f64x2.pmin(lo, v);
        hi = f64x2.pmax(hi, v);
      }
      let ss = hsum(s);
      let l = Math.min(f64x2.extract_lane(lo, 0), f64x2.extract_lane(lo, 1));
      let h = Math.max(f64x2.extract_lane(hi, 0), f64x2.extract_lane(hi, 1));
      for (; r < len; r++) {
        const v = load<f64>(col + ((<usize>r) << 3));
        ss += v;
        l = Math.min(l, v);
        h = Math.max(h, v);
      }
      const mPtr = meansPtr + ((<usize>c) << 3);
      store<f64>(mPtr, load<f64>(mPtr) + ss);
      const lPtr = minMax + ((<usize>c) << 4);
      store<f64>(lPtr, Math.min(load<f64>(lPtr), l));
      store<f64>(lPtr + 8, Math.max(load<f64>(lPtr + 8), h));
    }
  }
  for (let c = 0; c < qa; c++) {
    const mPtr = meansPtr + ((<usize>c) << 3);
    const s = load<f64>(mPtr);
    if (!isFinite(s)) {
      heap.free(scratch);
      heap.free(minMax);
      return ERR_NOT_FINITE;
    }
    store<f64>(mPtr, s / <f64>rows);
    if (c < q)
      store<u8>(
        constantPtr + <usize>c,
        load<f64>(minMax + ((<usize>c) << 4)) == load<f64>(minMax + ((<usize>c) << 4) + 8) ? 1 : 0,
      );
  }
  heap.free(minMax);
  // pass 2: centre each chunk, accumulate the upper block rows of the Gram matrix
  const g = heap.alloc((<usize>qe * <usize>qe) << 3);
  memory.fill(g, 0, (<usize>qe * <usize>qe) << 3);
  for (let r0 = 0; r0 < rows; r0 += CHUNK) {
    const len = min(CHUNK, rows - r0);
    fillDesign(design, xPtr, rows, p, r0, len, scratch);
    memory.copy(scratch + <usize>q * CHUNK_BYTES, yPtr + ((<usize>r0) << 3), (<usize>len) << 3);
    for (let c = 0; c < qa; c++) {
      const col = scratch + <usize>c * CHUNK_BYTES;
      const m = load<f64>(meansPtr + ((<usize>c) << 3));
      const mv = f64x2.splat(m);
      let r = 0;
      for (; r + 2 <= len; r += 2) {
        const a = col + ((<usize>r) << 3);
        v128.store(a, f64x2.sub(v128.load(a), mv));
      }
      for (; r < len; r++) {
        const a = col + ((<usize>r) << 3);
        store<f64>(a, load<f64>(a) - m);
      }
      if (len < CHUNK) memory.fill(col + ((<usize>len) << 3), 0, (<usize>(CHUNK - len)) << 3);
    }
    accumulateBlocks(scratch, qe, g);
  }
  for (let i = 0; i < qa; i++) {
    for (let j = i; j < qa; j++) {
      const v = load<f64>(g + ((<usize>i * <usize>qe + <usize>j) << 3));
      store<f64>(gramPtr + ((<usize>i * <usize>qa + <usize>j) << 3), v);
      store<f64>(gramPtr + ((<usize>j * <usize>qa + <usize>i) << 3), v);
    }
  }
  heap.free(g);
  heap.free(scratch);
  return OK;
}

// g[i][j] += sum_r s_i[r] s_j[r] for i in 2-row blocks and j in 4-column blocks at or right of i.
function accumulateBlocks(scratch: usize, qe: i32, g: usize): void {
  const stride = (<usize>qe) << 3;
  for (let bi = 0; bi < qe; bi += 2) {
    const a0 = scratch + <usize>bi * CHUNK_BYTES;
    const a1 = a0 + CHUNK_BYTES;
    for (let bj = bi & ~3; bj < qe; bj += 4) {
      const b0 = scratch + <usize>bj * CHUNK_BYTES;
      const b1 = b0 + CHUNK_BYTES;
      const b2 = b1 + CHUNK_BYTES;
      const b3 = b2 + CHUNK_BYTES;
      let c00 = f64x2.splat(0);
      let c01 = f64x2.splat(0);
      let c02 = f64x2.splat(0);
      let c03 = f64x2.splat(0);
      let c10 = f64x2.splat(0);
      let c11 = f64x2.splat(0);
      let c12 = f64x2.splat(0);
      let c13 = f64x2.splat(0);
      for (let o: usize = 0; o < CHUNK_BYTES; o += 16) {
        const x0 = v128.load(a0 + o);
        const x1 = v128.load(a1 + o);
        const y0 = v128.load(b0 + o);
        const y1 = v128.load(b1 + o);
        const y2 = v128.load(b2 + o);
        const y3 = v128.load(b3 + o);
        c00 = f64x2.add(c00, f64x2.mul(x0, y0));
        c01 = f64x2.add(c01, f64x2.mul(x0, y1));
        c02 = f64x2.add(c02, f64x2.mul(x0, y2));
        c03 = f64x2.add(c03, f64x2.mul(x0, y3));
        c10 = f64x2.add(c10, f64x2.mul(x1, y0));
        c11 = f64x2.add(c11, f64x2.mul(x1, y1));
        c12 = f64x2.add(c12, f64x2.mul(x1, y2));
        c13 = f64x2.add(c13, f64x2.mul(x1, y3));
      }
      const r0 = g + <usize>bi * stride + ((<usize>bj) << 3);
      const r1 = r0 + stride;
      store<f64>(r0, load<f64>(r0) + hsum(c00));
      store<f64>(r0 + 8, load<f64>(r0 + 8) + hsum(c01));
      store<f64>(r0 + 16, load<f64>(r0 + 16) + hsum(c02));
      store<f64>(r0 + 24, load<f64>(r0 + 24) + hsum(c03));
      store<f64>(r1, load<f64>(r1) + hsum(c10));
      store<f64>(r1 + 8, load<f64>(r1 + 8) + hsum(c11));
      store<f64>(r1 + 16, load<f64>(r1 + 16) + hsum(c12));
      store<f64>(r1 + 24, load<f64>(r1 + 24) + hsum(c13));
    }
  }
}

/**
 * In-place Cholesky factorisation A = L L' of the n x n row-major matrix at aPtr (lower triangle
 * written, upper left untouched). Returns false when a pivot is not above tol.
 */
export function choleskyInPlace(aPtr: usize, n: i32, tol: f64): bool {
  const nn = <usize>n;
  for (let j: usize = 0; j < nn; j++) {
    let d = load<f64>(aPtr + ((j * nn + j) << 3));
    for (let k: usize = 0; k < j; k++) {
      const l = load<f64>(aPtr + ((j * nn + k) << 3));
      d -= l * l;
    }
    if (!(d > tol)) return false;
    const ljj = Math.sqrt(d);
    store<f64>(aPtr + ((j * nn + j) << 3), ljj);
    for (let i = j + 1; i < nn; i++) {
      let s = load<f64>(aPtr + ((i * nn + j) << 3));
      for (let k: usize = 0; k < j; k++) s -= load<f64>(aPtr + ((i * nn + k) << 3)) * load<f64>(aPtr + ((j * nn + k) << 3));
      store<f64>(aPtr + ((i * nn + j) << 3), s / ljj);
    }
  }
  return true;
}

/** Solves L L' x = b in place (b at bPtr becomes x) with the factor from choleskyInPlace. */
export function choleskySolveInPlace(lPtr: usize, n: i32, bPtr: usize): void {
  const nn = <usize>n;
  for (let i: usize = 0; i < nn; i++) {
    let s = load<f64>(bPtr + (i << 3));
    for (let k: usize = 0; k < i; k++) s -= load<f64>(lPtr + ((i * nn + k) << 3)) * load<f64>(bPtr + (k << 3));
    store<f64>(bPtr + (i << 3), s / load<f64>(lPtr + ((i * nn + i) << 3)));
  }
  for (let ii = n - 1; ii >= 0; ii--) {
    const i = <usize>ii;
    let s = load<f64>(bPtr + (i << 3));
    for (let k = i + 1; k < nn; k++) s -= load<f64>(lPtr + ((k * nn + i) << 3)) * load<f64>(bPtr + (k << 3));
    store<f64>(bPtr + (i << 3), s / load<f64>(lPtr + ((i * nn + i) << 3)));
  }
}

// Cyclic Jacobi: on return a holds the eigenvalues on its diagonal and v (n x n, row-major) the
// eigenvectors as columns.
function jacobiEigen(a: usize, n: i32, v: usize): void {
  const nn = <usize>n;
  memory.fill(v, 0, (nn * nn) << 3);
  for (let i: usize = 0; i < nn; i++) store<f64>(v + ((i * nn + i) << 3), 1.0);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off: f64 = 0;
    let total: f64 = 0;
    for (let i: usize = 0; i < nn; i++) {
      for (let j: usize = 0; j < nn; j++) {
        const x = load<f64>(a + ((i * nn + j) << 3));
        total += x * x;
        if (i != j) off += x * x;
      }
    }
    if (off <= 1e-30 * total || off == 0) return;
    for (let p: usize = 0; p < nn; p++) {
      for (let q = p + 1; q < nn; q++) {
        const apq = load<f64>(a + ((p * nn + q) << 3));
        if (apq == 0) continue;
        const app = load<f64>(a + ((p * nn + p) << 3));
        const aqq = load<f64>(a + ((q * nn + q) << 3));
        const theta = (aqq - app) / (2 * apq);
        const t = (theta >= 0 ? 1.0 : -1.0) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k: usize = 0; k < nn; k++) {
          const akp = load<f64>(a + ((k * nn + p) << 3));
          const akq = load<f64>(a + ((k * nn + q) << 3));
          store<f64>(a + ((k * nn + p) << 3), c * akp - s * akq);
          store<f64>(a + ((k * nn + q) << 3), s * akp + c * akq);
        }
        for (let k: usize = 0; k < nn; k++) {
          const apk = load<f64>(a + ((p * nn + k) << 3));
          const aqk = load<f64>(a + ((q * nn + k) << 3));
          store<f64>(a + ((p * nn + k) << 3), c * apk - s * aqk);
          store<f64>(a + ((q * nn + k) << 3), s * apk + c * aqk);
        }
        for (let k: usize = 0; k < nn; k++) {
          const vkp = load<f64>(v + ((k * nn + p) << 3));
          const vkq = load<f64>(v + ((k * nn + q) << 3));
          store<f64>(v + ((k * nn + p) << 3), c * vkp - s * vkq);
          store<f64>(v + ((k * nn + q) << 3), s * vkp + c * vkq);
        }
      }
    }
  }
}

/**
 * Solves A x = b for a symmetric positive semi-definite n x n row-major A (not modified): Cholesky
 * on the equilibrated matrix, or the eigen pseudo-inverse (minimum-norm solution) when A is
 * numerically singular. Returns OK, or ERR_SINGULAR when A has no positive eigenvalue at all.
 */
export function solveSymmetricPsd(aPtr: usize, n: i32, bPtr: usize, xPtr: usize): i32 {
  const nn = <usize>n;
  if (n == 0) return OK;
  const work = heap.alloc((nn * nn) << 3);
  const d = heap.alloc(nn << 3);
  for (let i: usize = 0; i < nn; i++) {
    const aii = load<f64>(aPtr + ((i * nn + i) << 3));
    store<f64>(d + (i << 3), aii > 0 ? Math.sqrt(aii) : 1.0);
  }
  for (let i: usize = 0; i < nn; i++) {
    const di = load<f64>(d + (i << 3));
    for (let j: usize = 0; j < nn; j++) {
      store<f64>(work + ((i * nn + j) << 3), load<f64>(aPtr + ((i * nn + j) << 3)) / (di * load<f64>(d + (j << 3))));
    }
    store<f64>(xPtr + (i << 3), load<f64>(bPtr + (i << 3)) / di);
  }
  const tol = <f64>n * f64.EPSILON;
  let status = OK;
  if (choleskyInPlace(work, n, tol)) {
    choleskySolveInPlace(work, n, xPtr);
  } else {
    for (let i: usize = 0; i < nn; i++) {
      const di = load<f64>(d + (i << 3));
      for (let j: usize = 0; j < nn; j++) {
        store<f64>(work + ((i * nn + j) << 3), load<f64>(aPtr + ((i * nn + j) << 3)) / (di * load<f64>(d + (j << 3))));
      }
    }
    status = pseudoInverseSolve(work, n, xPtr);
  }
  for (let i: usize = 0; i < nn; i++) store<f64>(xPtr + (i << 3), load<f64>(xPtr + (i << 3)) / load<f64>(d + (i << 3)));
  heap.free(d);
  heap.free(work);
  return status;
}

// x := pinv(a) x, for the symmetric a (destroyed), dropping eigenvalues <= n * eps * max.
function pseudoInverseSolve(a: usize, n: i32, xPtr: usize): i32 {
  const nn = <usize>n;
  const v = heap.alloc((nn * nn) << 3);
  const t = heap.alloc(nn << 3);
  jacobiEigen(a, n, v);
  let lmax: f64 = 0;
  for (let i: usize = 0; i < nn; i++) lmax = Math.max(lmax, load<f64>(a + ((i * nn + i) << 3)));
  const cut = lmax * <f64>n * f64.EPSILON;
  for (let k: usize = 0; k < nn; k++) {
    const lk = load<f64>(a + ((k * nn + k) << 3));
    let s: f64 = 0;
    if (lk > cut) {
      for (let i: usize = 0; i < nn; i++) s += load<f64>(v + ((i * nn + k) << 3)) * load<f64>(xPtr + (i << 3));
      s /= lk;
    }
    store<f64>(t + (k << 3), s);
  }
  for (let i: usize = 0; i < nn; i++) {
    let s: f64 = 0;
    for (let k: usize = 0; k < nn; k++) s += load<f64>(v + ((i * nn + k) << 3)) * load<f64>(t + (k << 3));
    store<f64>(xPtr + (i << 3), s);
  }
  heap.free(t);
  heap.free(v);
  return lmax > 0 ? OK : ERR_SINGULAR;
}

/**
 * Fits y ~ design(X) coef + intercept on the rows x p column-major X. Writes designWidth(design, p)
 * coefficients to outPtr followed by the intercept. positive != 0 constrains coef >= 0 (NNLS).
 */
export function fitLinear(xPtr: usize, rows: i32, p: i32, yPtr: usize, design: i32, positive: i32, outPtr: usize): i32 {
  if (rows < 0 || p < 0 || (design != DESIGN_AS_IS && design != DESIGN_POLYNOMIAL_2)) return ERR_DIMENSION;
  if (rows < 1) return ERR_TOO_FEW_ROWS;
  const q = designWidth(design, p);
  const qa = q + 1;
  const means = heap.alloc((<usize>qa) << 3);
  const gram = heap.alloc((<usize>qa * <usize>qa) << 3);
  const constant = heap.alloc(<usize>max(q, 1));
  let status = centredGram(design, xPtr, rows, p, yPtr, q, means, gram, constant);
  if (status == OK) {
    // the reduced system over the non-constant columns
    const index = heap.alloc((<usize>max(q, 1)) << 2);
    let m = 0;
    for (let j = 0; j < q; j++) {
      if (load<u8>(constant + <usize>j) == 0) {
        store<i32>(index + ((<usize>m) << 2), j);
        m++;
      }
    }
    const mm = <usize>m;
    const a = heap.alloc(max<usize>(mm * mm, 1) << 3);
    const b = heap.alloc(max<usize>(mm, 1) << 3);
    const x = heap.alloc(max<usize>(mm, 1) << 3);
    for (let i: usize = 0; i < mm; i++) {
      const gi = <usize>load<i32>(index + (i << 2));
      for (let j: usize = 0; j < mm; j++) {
        const gj = <usize>load<i32>(index + (j << 2));
        store<f64>(a + ((i * mm + j) << 3), load<f64>(gram + ((gi * <usize>qa + gj) << 3)));
      }
      store<f64>(b + (i << 3), load<f64>(gram + ((gi * <usize>qa + <usize>q) << 3)));
    }
    if (m > 0) {
      status = positive != 0 ? nnlsGram(a, b, m, rows, x) : solveSymmetricPsd(a, m, b, x);
      // an all-zero centred design (every column constant up to rounding) has coef 0, as in sklearn
      if (status == ERR_SINGULAR) {
        memory.fill(x, 0, mm << 3);
        status = OK;
      }
    }
    for (let j = 0; j < q; j++) store<f64>(outPtr + ((<usize>j) << 3), 0);
    let intercept = load<f64>(means + ((<usize>q) << 3));
    for (let i: usize = 0; i < mm; i++) {
      const j = <usize>load<i32>(index + (i << 2));
      const c = load<f64>(x + (i << 3));
      store<f64>(outPtr + (j << 3), c);
      intercept -= c * load<f64>(means + (j << 3));
    }
    store<f64>(outPtr + ((<usize>q) << 3), intercept);
    heap.free(x);
    heap.free(b);
    heap.free(a);
    heap.free(index);
  }
  heap.free(constant);
  heap.free(gram);
  heap.free(means);
  return status;
}

/**
 * Writes intercept + design(X) coef for the rows x p column-major X to outPtr (rows values).
 * coefPtr holds designWidth(design, p) coefficients.
 */
export function predictLinear(xPtr: usize, rows: i32, p: i32, design: i32, coefPtr: usize, intercept: f64, outPtr: usize): i32 {
  if (rows < 0 || p < 0 || (design != DESIGN_AS_IS && design != DESIGN_POLYNOMIAL_2)) return ERR_DIMENSION;
  const q = designWidth(design, p);
  const n = <usize>rows;
  const iv = f64x2.splat(intercept);
  let i: usize = 0;
  for (; i + 2 <= n; i += 2) v128.store(outPtr + (i << 3), iv);
  for (; i < n; i++) store<f64>(outPtr + (i << 3), intercept);
  if (design == DESIGN_AS_IS) {
    addColumns(xPtr, n, n, q, coefPtr, outPtr);
    return OK;
  }
  const scratch = heap.alloc(<usize>q * CHUNK_BYTES);
  for (let r0 = 0; r0 < rows; r0 += CHUNK) {
    const len = min(CHUNK, rows - r0);
    polynomialFill(xPtr, rows, p, r0, len, scratch, CHUNK);
    addColumns(scratch, <usize>CHUNK, <usize>len, q, coefPtr, outPtr + ((<usize>r0) << 3));
  }
  heap.free(scratch);
  return OK;
}

// out[r] += sum_j coef[j] * x[j * stride + r] for r < len, column by column (the order sklearn's
// X @ coef uses up to rounding).
function addColumns(xPtr: usize, stride: usize, len: usize, q: i32, coefPtr: usize, outPtr: usize): void {
  for (let j = 0; j < q; j++) {
    const c = load<f64>(coefPtr + ((<usize>j) << 3));
    if (c == 0) continue;
    const cv = f64x2.splat(c);
    const col = xPtr + ((<usize>j * stride) << 3);
    let r: usize = 0;
    for (; r + 2 <= len; r += 2) {
      const o = outPtr + (r << 3);
      v128.store(o, f64x2.add(v128.load(o), f64x2.mul(cv, v128.load(col + (r << 3)))));
    }
    for (; r < len; r++) {
      const o = outPtr + (r << 3);
      store<f64>(o, load<f64>(o) + c * load<f64>(col + (r << 3)));
    }
  }
}
