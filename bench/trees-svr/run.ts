// Tree-ensemble and SVR trainers against scikit-learn, side by side on the synthetic table of
// bench/trainers (issue 5): GradientBoostingRegressor fit on 100k x 9 rows, SVR fit on 5k x 9, and
// prediction of 10k rows with each; our XGBoost-style histogram boosting against sklearn's
// HistGradientBoostingRegressor (the nearest sklearn has: xgboost is not installed). Our side keeps the
// table resident in wasm memory; sklearn runs in Debian's /usr/bin/python3 (sklearn_trees_svr.py).
// Prints the median of N runs per case and the ratio sklearn / ours (> 1 means we are faster).
//   npm run bench -- trees-svr        (BENCH_RUNS=n, default 3; sklearn's GBR fit runs once: ~2 min each)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  F64Buffer,
  fitGradientBoosting,
  fitHistogramBoosting,
  fitSvr,
  predictSvr,
  predictTreeEnsemble,
  type WasmMatrix,
} from "../../wasm-core/src/index.js";
import { measure, ms, printTable } from "../support/measure.js";
import { syntheticTable, writeTable } from "../trainers/synthetic-table.js";

const PYTHON = "/usr/bin/python3";
const TRAIN = 100_000;
const SVR_TRAIN = 5_000;
const QUERIES = 10_000;

// Rows [from, from + take) of the column-major table as a resident matrix (copied once, untimed).
function resident(x: Float64Array, rows: number, cols: number, from: number, take: number): WasmMatrix {
  const buffer = F64Buffer.alloc(take * cols);
  const view = buffer.view();
  for (let j = 0; j < cols; j++) view.set(x.subarray(j * rows + from, j * rows + from + take), j * take);
  return { rows: take, cols, buffer };
}

interface Case {
  key: string;
  name: string;
  sklearnRuns: number;
  run: () => unknown;
}

const sum = (p: Float64Array) => p.reduce((a, b) => a + b, 0);

export default async function run(): Promise<void> {
  const runs = Number(process.env["BENCH_RUNS"] ?? 3);
  const gbrSklearnRuns = Number(process.env["BENCH_GBR_SKLEARN_RUNS"] ?? 1);
  const table = syntheticTable(TRAIN + QUERIES, 20240611);
  const dir = mkdtempSync(join(tmpdir(), "bench-trees-svr-"));
  const tablePath = join(dir, "table.bin");
  writeTable(table, tablePath);
  const train = resident(table.x, table.rows, table.cols, 0, TRAIN);
  const trainY = F64Buffer.from(table.y.subarray(0, TRAIN));
  const svrTrain = resident(table.x, table.rows, table.cols, 0, SVR_TRAIN);
  const svrY = F64Buffer.from(table.y.subarray(0, SVR_TRAIN));
  const queries = resident(table.x, table.rows, table.cols, TRAIN, QUERIES);

  const gbr = fitGradientBoosting(train, trainY);
  const gbrEnsemble = { base: gbr.init, scale: gbr.learningRate, trees: gbr.trees };
  const hist = fitHistogramBoosting(train, trainY);
  const histEnsemble = { base: hist.baseScore, scale: 1, trees: hist.trees };
  const svr = fitSvr(svrTrain, svrY);
  const cases: Case[] = [
    { key: "gbr_fit", name: "GBR fit 100k x 9", sklearnRuns: gbrSklearnRuns, run: () => fitGradientBoosting(train, trainY) },
    { key: "gbr_predict", name: "GBR predict 10k", sklearnRuns: runs, run: () => sum(predictTreeEnsemble(gbrEnsemble, queries)) },
    { key: "svr_fit", name: "SVR fit 5k x 9", sklearnRuns: runs, run: () => fitSvr(svrTrain, svrY) },
    { key: "svr_predict", name: "SVR predict 10k", sklearnRuns: runs, run: () => sum(predictSvr(svr, queries)) },
    {
      key: "hist_fit",
      name: "hist boosting fit 100k x 9 (vs HGB)",
      sklearnRuns: runs,
      run: () => fitHistogramBoosting(train, trainY),
    },
    {
      key: "hist_predict",
      name: "hist boosting predict 10k (vs HGB)",
      sklearnRuns: runs,
      run: () => sum(predictTreeEnsemble(histEnsemble, queries)),
    },
  ];

  const ours = new Map<string, number>();
  for (const c of cases) {
    const timing = await measure(c.run, runs, 1);
    ours.set(c.key, timing.medianMs);
    console.log(`ours    ${c.name.padEnd(38)} median ${ms(timing.medianMs).padStart(8)} ms`);
  }
  console.log(
    `ours    GBR query sum ${sum(predictTreeEnsemble(gbrEnsemble, queries)).toFixed(3)}, SVR ${svr.dualCoef.length} support vectors, intercept ${svr.intercept.toFixed(6)}`,
  );

  let sklearn = new Map<string, { median_ms: number; info: unknown }>();
  const probe = spawnSync(PYTHON, ["-c", "import sklearn; print(sklearn.__version__)"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.log(
      `\nNOTE: ${PYTHON} with scikit-learn is not available (apt-get install python3-sklearn); showing our numbers only.`,
    );
  } else {
    console.log(`\nscikit-learn ${probe.stdout.trim()} (${PYTHON}) ...`);
    const script = join(dirname(fileURLToPath(import.meta.url)), "sklearn_trees_svr.py");
    const args = [script, tablePath, String(table.rows), String(table.cols), ...cases.map((c) => `${c.key}:${c.sklearnRuns}`)];
    const result = spawnSync(PYTHON, args, { encoding: "utf8", maxBuffer: 16 << 20 });
    if (result.status !== 0) console.log(`NOTE: sklearn_trees_svr.py failed: ${result.stderr}`);
    else sklearn = new Map(Object.entries(JSON.parse(result.stdout) as Record<string, { median_ms: number; info: unknown }>));
  }
  rmSync(dir, { recursive: true, force: true });

  printTable(
    "median ms; ratio = sklearn / ours (> 1: wasm-core is faster)",
    ["case", "ours ms", "sklearn ms", "ratio"],
    cases.map((c) => {
      const our = ours.get(c.key)!;
      const theirs = sklearn.get(c.key)?.median_ms;
      return [c.name, ms(our), theirs === undefined ? "-" : ms(theirs), theirs === undefined ? "-" : (theirs / our).toFixed(2)];
    }),
  );
  for (const key of ["gbr_predict", "svr_predict"]) {
    const theirs = sklearn.get(key)?.info;
    const our = key === "gbr_predict" ? sum(predictTreeEnsemble(gbrEnsemble, queries)) : sum(predictSvr(svr, queries));
    console.log(
      `${key}: sum of the 10k predictions, ours ${our.toFixed(4)}, sklearn ${typeof theirs === "number" ? theirs.toFixed(4) : "-"}`,
    );
  }
  for (const m of [train, svrTrain, queries]) m.buffer.free();
  trainY.free();
  svrY.free();
}
