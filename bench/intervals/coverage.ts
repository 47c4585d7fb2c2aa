// Coverage of the split-conformal prediction intervals on rows neither the fit nor the calibration saw. Per
// seed: a seeded permutation sets aside an evaluation part of the table (20 %, at least one row); the trainer
// trains on the rest exactly as in production (its seeded 90/10 split; the 10 % test rows calibrate the
// intervals, metadata `calibration`); the model's intervals at each level are then checked on the evaluation
// rows. Counting and widths run in wasm-core; this file only sums a few numbers per seed.
import { type DataTable, findColumn, getColumn } from "../../services/domain/data-table.js";
import { powerColumn } from "../../services/domain/energy-sources.js";
import { predictTable } from "../../services/estimator/domain/evaluate-predictor.js";
import { createComponentPredictor } from "../../services/estimator/domain/predictor.js";
import { tableAtRows } from "../../services/estimator/domain/scored-rows.js";
import { readComponentModels } from "../../services/models/index.js";
import { trainModels } from "../../services/trainer/domain/train-models.js";
import { conformalHalfWidth, countCovered, permutation, predictionBounds, vectorStats } from "../../wasm-core/src/index.js";

/** What to measure on one table. */
export interface CoverageCase {
  table: DataTable;
  energySource: string;
  featureGroup: string;
  trainerNames: readonly string[];
  seeds: readonly number[];
  levels: readonly number[];
  /** Share of rows set aside for evaluation per seed (default 0.2). */
  evaluationFraction?: number;
}

/** Coverage and widths of one trainer, component and level over every seed. */
export interface CoverageResult {
  trainer: string;
  component: string;
  level: number;
  /** Evaluation rows inside their interval, and evaluation rows in all. */
  covered: number;
  rows: number;
  /** Mean half width over seeds, watts, and relative to the mean measured power of the evaluation rows. */
  meanHalfWidthWatts: number;
  meanRelativeHalfWidth: number;
  /** Calibration residuals per seed (the trainer's test rows). */
  calibrationRows: number;
}

/** Components the table measures with some positive power (all-zero components, core/uncore on many machines, are left out). */
function measuredComponents(table: DataTable, components: readonly string[]): string[] {
  return components.filter(
    (c) => findColumn(table, powerColumn(c)) >= 0 && vectorStats(getColumn(table, powerColumn(c))).max > 0,
  );
}

type Entry = CoverageResult & { widthSum: number; relativeSum: number; seeds: number };

/** One split: trains on `training` (calibrating on `calibrationTimestamps` when given, else the seeded 10 %), scores `evaluation`. */
async function scoreSplit(
  spec: CoverageCase,
  split: { evaluation: DataTable; training: DataTable; seed: number; calibrationTimestamps?: readonly number[] },
  results: Map<string, Entry>,
  skipped: Set<string>,
): Promise<void> {
  const { evaluation, training, seed } = split;
  const trained = await trainModels(
    {
      table: training,
      energySource: spec.energySource,
      featureGroup: spec.featureGroup,
      outputType: "AbsPower",
      trainerNames: spec.trainerNames,
      nodeType: 0,
      seed,
      pipelineName: "interval-coverage",
      ...(split.calibrationTimestamps === undefined ? {} : { testTimestampsSeconds: split.calibrationTimestamps }),
    },
    { publishModel: async () => undefined },
  );
  for (const result of trained.results) {
    // A trainer that cannot fit this table (KNN's 6 neighbours on the idle recording's 3 training rows) is skipped.
    if (result.archive === undefined) {
      skipped.add(`${result.trainerName}: ${result.failureReason ?? "failed"}`);
      continue;
    }
    const components = measuredComponents(
      evaluation,
      result.components.map((c) => c.component),
    );
    const models = readComponentModels(result.archive.files, components);
    const predictions = predictTable(createComponentPredictor(models), evaluation, models.features);
    for (const { component, measured, predicted } of predictions.filter((p) => components.includes(p.component))) {
      const residuals = result.components.find((c) => c.component === component)!.heldOut.absResidualsSorted;
      const meanPower = vectorStats(measured).mean;
      for (const level of spec.levels) {
        const halfWidth = conformalHalfWidth(residuals, level);
        const { lowerWatts, upperWatts } = predictionBounds(predicted, halfWidth);
        const key = `${result.trainerName}/${component}/${level}`;
        const entry = results.get(key) ?? {
          trainer: result.trainerName,
          component,
          level,
          covered: 0,
          rows: 0,
          meanHalfWidthWatts: 0,
          meanRelativeHalfWidth: 0,
          calibrationRows: residuals.length,
          widthSum: 0,
          relativeSum: 0,
          seeds: 0,
        };
        entry.covered += countCovered(measured, lowerWatts, upperWatts);
        entry.rows += measured.length;
        entry.widthSum += halfWidth;
        entry.relativeSum += meanPower > 0 ? halfWidth / meanPower : 0;
        entry.seeds += 1;
        results.set(key, entry);
      }
    }
  }
}

function summarize(results: Map<string, Entry>): CoverageResult[] {
  return [...results.values()].map(({ widthSum, relativeSum, seeds, ...entry }) => ({
    ...entry,
    meanHalfWidthWatts: widthSum / seeds,
    meanRelativeHalfWidth: relativeSum / seeds,
  }));
}

/** Measures every trainer x component x level of `spec` over its seeded splits (see the file comment). */
export async function measureCoverage(spec: CoverageCase, skipped = new Set<string>()): Promise<CoverageResult[]> {
  const results = new Map<string, Entry>();
  const n = spec.table.rowCount;
  const evaluationCount = Math.max(1, Math.ceil((spec.evaluationFraction ?? 0.2) * n));
  for (const seed of spec.seeds) {
    // By row, not timestamp: a VM table holds several VMs' rows at the same times.
    const order = permutation(n, seed);
    const evaluation = tableAtRows(spec.table, order.slice(0, evaluationCount));
    const training = tableAtRows(spec.table, order.slice(evaluationCount));
    await scoreSplit(spec, { evaluation, training, seed }, results, skipped);
  }
  return summarize(results);
}

/**
 * Coverage over every split of a table too small to sample (the idle recording's 5 rows): each row in turn is
 * the evaluation row and each other row in turn the one calibration row, so the result is the exact mean over
 * all such splits, not a sample of them. Needs one row per timestamp (a node-level table) and a table whose
 * training part gets one calibration row (n - 1 <= 10, the trainer's ceil(10 %)).
 */
export async function measureCoverageOverAllSplits(
  spec: Omit<CoverageCase, "seeds" | "evaluationFraction">,
  skipped = new Set<string>(),
): Promise<CoverageResult[]> {
  const n = spec.table.rowCount;
  if (n < 3 || n - 1 > 10) throw new RangeError(`all splits: needs 3 to 11 rows, got ${n}`);
  const results = new Map<string, Entry>();
  const rows = Array.from({ length: n }, (_, i) => i);
  for (const held of rows) {
    const evaluation = tableAtRows(spec.table, Uint32Array.of(held));
    const training = tableAtRows(spec.table, Uint32Array.from(rows.filter((row) => row !== held)));
    for (const calibration of rows.filter((row) => row !== held)) {
      const calibrationTimestamps = [spec.table.timestamps[calibration]!];
      await scoreSplit({ ...spec, seeds: [] }, { evaluation, training, seed: 1, calibrationTimestamps }, results, skipped);
    }
  }
  return summarize(results);
}
