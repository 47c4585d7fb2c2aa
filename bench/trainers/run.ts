// Trainer kernels against scikit-learn, side by side on the same synthetic table (issue 4):
// fit time for LinearRegression(positive=True), PolynomialFeatures(2) + LinearRegression and
// SGDRegressor(random_state=0) on 100k and 1M rows x 9 features, and KNeighborsRegressor(6)
// prediction of 10k queries against 100k rows (sklearn's default algorithm picks its KD-tree).
// Our side keeps the table resident in wasm memory (written once, untimed) and reports the median
// of BENCH_RUNS runs (default 5) after one warm-up run; sklearn's side runs in Debian's
// /usr/bin/python3 (sklearn_bench.py) on the same bytes, median of BENCH_SKLEARN_RUNS (default 3).
// ratio = sklearn median / ours (> 1: wasm-core is faster).
//   npm run bench -- trainers
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { F64Buffer, type WasmMatrix, fitLinear, fitPolynomialLinear, fitSgd, predictKnn } from "../../wasm-core/src/index.js";
import { measure, ms, printTable } from "../support/measure.js";
import { type SyntheticTable, syntheticTable, writeTable } from "./synthetic-table.js";

const PYTHON = "/usr/bin/python3";
const SIZES = [100_000, 1_000_000] as const;
const KNN_TRAIN = 100_000;
const KNN_QUERIES = 10_000;

interface Case {
  name: string;
  /** The case as sklearn_bench.py names it: kind:rows. */
  key: string;
  run: () => string;
}

// Rows [from, from + take) of the table as a resident column-major matrix.
function residentRows(table: SyntheticTable, from: number, take: number): WasmMatrix {
  const buffer = F64Buffer.alloc(take * table.cols);
  const view = buffer.view();
  for (let j = 0; j < table.cols; j++) view.set(table.x.subarray(j * table.rows + from, j * table.rows + from + take), j * take);
  return { rows: take, cols: table.cols, buffer };
}

function sklearnMedians(tablePath: string, table: SyntheticTable, runs: number, keys: string[]): Map<string, number> | string {
  const probe = spawnSync(PYTHON, ["-c", "import sklearn, scipy, numpy; print(sklearn.__version__)"], { encoding: "utf8" });
  if (probe.status !== 0)
    return `${PYTHON} with scikit-learn is not available (apt-get install python3-sklearn python3-scipy python3-numpy)`;
  console.log(`scikit-learn ${probe.stdout.trim()} (${PYTHON}), median of ${runs} runs per case ...`);
  const script = join(dirname(fileURLToPath(import.meta.url)), "sklearn_bench.py");
  const args = [script, tablePath, String(table.rows), String(table.cols), String(runs), ...keys];
  const result = spawnSync(PYTHON, args, { encoding: "utf8", maxBuffer: 16 << 20 });
  if (result.status !== 0) return `sklearn_bench.py failed: ${result.stderr}`;
  const parsed = JSON.parse(result.stdout) as Record<string, { median_ms: number }>;
  return new Map(Object.entries(parsed).map(([key, value]) => [key, value.median_ms]));
}

export default async function run(): Promise<void> {
  const runs = Number(process.env["BENCH_RUNS"] ?? 5);
  const sklearnRuns = Number(process.env["BENCH_SKLEARN_RUNS"] ?? 3);
  // 1M rows for the fits plus the KNN queries right after the first 100k rows (sklearn_bench.py
  // takes x[n : n + 10000] for n = 100k)
  const table = syntheticTable(1_000_000, 20240611);
  const dir = mkdtempSync(join(tmpdir(), "bench-trainers-"));
  const tablePath = join(dir, "table.bin");
  writeTable(table, tablePath);

  const resident = SIZES.map((n) => ({ n, x: residentRows(table, 0, n), y: F64Buffer.from(table.y.subarray(0, n)) }));
  const queries = residentRows(table, KNN_TRAIN, KNN_QUERIES);
  const cases: Case[] = [];
  for (const { n, x, y } of resident) {
    const label = n === 100_000 ? "100k" : "1M";
    cases.push({
      name: `linear positive ${label}`,
      key: `linear:${n}`,
      run: () => `intercept ${fitLinear(x, y, { positive: true }).intercept.toFixed(4)}`,
    });
    cases.push({
      name: `polynomial 2 + OLS ${label}`,
      key: `polynomial:${n}`,
      run: () => `intercept ${fitPolynomialLinear(x, y).intercept.toFixed(4)}`,
    });
    cases.push({
      name: `sgd ${label}`,
      key: `sgd:${n}`,
      run: () => {
        const model = fitSgd(x, y, { seed: 0 });
        return `${model.epochs} epochs, intercept ${model.intercept.toFixed(4)}`;
      },
    });
  }
  const knnData = resident[0]!;
  cases.push({
    name: "knn k=6, 10k queries x 100k rows",
    key: `knn:${KNN_TRAIN}`,
    run: () =>
      `sum ${predictKnn({ x: knnData.x, y: knnData.y, k: 6 }, queries)
        .reduce((a, b) => a + b, 0)
        .toFixed(4)}`,
  });

  const ours = new Map<string, { medianMs: number; info: string }>();
  for (const c of cases) {
    let info = "";
    const timing = await measure(
      () => {
        info = c.run();
      },
      runs,
      1,
    );
    ours.set(c.key, { medianMs: timing.medianMs, info });
    console.log(`ours: ${c.name.padEnd(34)} ${ms(timing.medianMs).padStart(7)} ms  (${info})`);
  }
  for (const { x, y } of resident) {
    x.buffer.free();
    y.free();
  }
  queries.buffer.free();

  const sklearn = sklearnMedians(
    tablePath,
    table,
    sklearnRuns,
    cases.map((c) => c.key),
  );
  rmSync(dir, { recursive: true, force: true });
  if (typeof sklearn === "string") console.log(`NOTE: ${sklearn}; showing our numbers only.`);
  const theirs = typeof sklearn === "string" ? new Map<string, number>() : sklearn;
  printTable(
    `trainer kernels vs scikit-learn, median ms (ours: ${runs} runs after 1 warm-up; sklearn: ${sklearnRuns} runs)`,
    ["case", "wasm-core", "sklearn", "sklearn / wasm-core"],
    cases.map((c) => {
      const our = ours.get(c.key)!.medianMs;
      const their = theirs.get(c.key);
      return [c.name, ms(our), their === undefined ? "-" : ms(their), their === undefined ? "-" : (their / our).toFixed(2)];
    }),
  );
}
