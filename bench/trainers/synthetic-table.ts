// The benchmark's synthetic training table, the same bytes for our side and scikit-learn's.
// Nine features driven by three latent load factors plus noise (hardware counters of one node are
// strongly correlated, so the table has a low intrinsic dimension like real Kepler data), and a
// power target that is linear in the features with a small quadratic term and Gaussian-like noise.
// Generated with a seeded 32-bit generator (mulberry32), so every run sees the same table.
import { writeFileSync } from "node:fs";

/** Column-major features (rows x cols) and targets. */
export interface SyntheticTable {
  rows: number;
  cols: number;
  x: Float64Array;
  y: Float64Array;
}

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FEATURES = 9;
const LOADINGS = [
  [1.0, 0.1, 0.0],
  [0.9, 0.3, 0.1],
  [0.2, 1.0, 0.0],
  [0.1, 0.8, 0.4],
  [0.0, 0.2, 1.0],
  [0.5, 0.5, 0.5],
  [0.7, 0.0, 0.3],
  [0.3, 0.3, 0.9],
  [0.0, 0.9, 0.2],
];
const WEIGHTS = [12, 7, 5, 0, 3, 9, 1.5, 4, 2];

/** A table of `rows` rows and 9 features from `seed`. */
export function syntheticTable(rows: number, seed: number): SyntheticTable {
  const random = mulberry32(seed);
  const x = new Float64Array(rows * FEATURES);
  const y = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    const f = [random(), random(), random()];
    let power = 80;
    for (let j = 0; j < FEATURES; j++) {
      const l = LOADINGS[j]!;
      const v = l[0]! * f[0]! + l[1]! * f[1]! + l[2]! * f[2]! + 0.05 * random();
      x[j * rows + i] = v;
      power += WEIGHTS[j]! * v;
    }
    const noise = random() + random() + random() - 1.5;
    y[i] = power + 6 * f[0]! * f[1]! + 2 * noise;
  }
  return { rows, cols: FEATURES, x, y };
}

/** Writes x (column-major) then y as little-endian float64 to `path`. */
export function writeTable(table: SyntheticTable, path: string): void {
  const bytes = new Uint8Array((table.x.length + table.y.length) * 8);
  bytes.set(new Uint8Array(table.x.buffer, table.x.byteOffset, table.x.byteLength), 0);
  bytes.set(new Uint8Array(table.y.buffer, table.y.byteOffset, table.y.byteLength), table.x.byteLength);
  writeFileSync(path, bytes);
}
