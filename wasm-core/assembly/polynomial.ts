// Degree-2 polynomial expansion, as scikit-learn's PolynomialFeatures(degree=2, include_bias=True)
// used by the reference's PolynomialRegressionTrainer (fe = PolynomialFeatures(degree=2)).
//
// Column order (sklearn's combinations_with_replacement order): 1, x0 .. x(p-1), then x_i * x_j for
// i <= j in lexicographic order: x0^2, x0 x1, .., x0 x(p-1), x1^2, x1 x2, .., x(p-1)^2.
// That is 1 + p + p (p + 1) / 2 columns. Matrices are column-major; the expansion of a block of rows
// (polynomialFill) is shared with the fused least-squares fit and prediction, which expand row
// chunks on the fly instead of materialising the wide matrix.
import { ERR_DIMENSION, OK } from "./status";

/** Number of degree-2 features (with bias) for p inputs. */
export function polynomialWidth(p: i32): i32 {
  return 1 + p + (p * (p + 1)) / 2;
}

/**
 * Expands rows [r0, r0 + len) of the column-major x (column stride xStride values) into out
 * (column stride outStride values, starting at row 0 of out).
 */
export function polynomialFill(xPtr: usize, xStride: i32, p: i32, r0: i32, len: i32, outPtr: usize, outStride: i32): void {
  const n = <usize>len;
  const os = (<usize>outStride) << 3;
  const xs = (<usize>xStride) << 3;
  const one = f64x2.splat(1.0);
  let i: usize = 0;
  for (; i + 2 <= n; i += 2) v128.store(outPtr + (i << 3), one);
  for (; i < n; i++) store<f64>(outPtr + (i << 3), 1.0);
  for (let c = 0; c < p; c++) {
    memory.copy(outPtr + <usize>(c + 1) * os, xPtr + <usize>c * xs + ((<usize>r0) << 3), n << 3);
  }
  let target = p + 1;
  for (let a = 0; a < p; a++) {
    const colA = outPtr + <usize>(a + 1) * os;
    for (let b = a; b < p; b++) {
      const colB = outPtr + <usize>(b + 1) * os;
      const dst = outPtr + <usize>target * os;
      let r: usize = 0;
      for (; r + 2 <= n; r += 2) {
        v128.store(dst + (r << 3), f64x2.mul(v128.load(colA + (r << 3)), v128.load(colB + (r << 3))));
      }
      for (; r < n; r++) store<f64>(dst + (r << 3), load<f64>(colA + (r << 3)) * load<f64>(colB + (r << 3)));
      target++;
    }
  }
}

/** Writes the degree-2 expansion of the rows x p matrix at xPtr to outPtr (rows x polynomialWidth(p)). */
export function polynomialFeatures2(xPtr: usize, rows: i32, p: i32, outPtr: usize): i32 {
  if (rows < 0 || p < 0) return ERR_DIMENSION;
  polynomialFill(xPtr, rows, p, 0, rows, outPtr, rows);
  return OK;
}
