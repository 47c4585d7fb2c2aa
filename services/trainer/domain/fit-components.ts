// The CPU-heavy part of one trainer on one node type: scale, split, fit every component, predict the
// test rows, MAE/MAPE and the sorted absolute test residuals (calibration), then the model archive, its zip and the checkpoints' JSON. Plain data in and out
// (no callbacks, no I/O) so it runs the same on the main thread or on a worker thread with its own
// wasm-core instance; failures come back as data.
import {
  applyScale,
  clampNonNegative,
  type Matrix,
  meanAbsoluteError,
  meanAbsolutePercentageError,
  sortedAbsoluteResiduals,
  takeElements,
  takeRows,
  vectorStats,
} from "../../../wasm-core/src/index.js";
import { type FeatureGroupName, mainFeatureIndex } from "../../domain/feature-groups.js";
import {
  checkpointText,
  type ComponentModelFile,
  componentModelFileName,
  createCheckpoint,
  createZip,
  type ModelArchive,
} from "../../models/index.js";
import { type ArchiveContext, buildModelArchive } from "./build-model-archive.js";
import { resolveTrainers } from "./trainer-registry.js";
import type { ComponentResult } from "./training-results.js";

/** Everything one trainer's fits on one node type need. */
export interface FitJob {
  trainerName: string;
  /** The module registering a non-built-in trainer, imported first by a worker thread that lacks it. */
  trainerModule?: string;
  /** Features after the ratio rule, unscaled. */
  input: Matrix;
  /** The MaxAbs scale to apply (the checkpoint's when continuing). */
  scale: Float64Array;
  /** Label per component, in `components` order. */
  labels: Float64Array[];
  timestamps: Float64Array;
  trainRows: Uint32Array;
  testRows: Uint32Array;
  features: string[];
  components: string[];
  featureGroup: FeatureGroupName;
  seed: number;
  /** Checkpointed models to continue from, by component. */
  previous: Array<[string, ComponentModelFile]>;
  /** What the archive needs besides the fits. */
  archive: ArchiveContext;
}

/**
 * What the fits made, as plain data that crosses threads cheaply: the fitted models themselves stay on the
 * fit's thread (their archive files and checkpoint texts carry them). `failure` names the component that
 * failed ("" before any fit).
 */
export interface FitOutcome {
  /** The components fitted, in order. */
  fitted: string[];
  components: ComponentResult[];
  failure?: { component: string; message: string };
  /** How long the fits took on the thread that ran them (not counting time queued). */
  elapsedMs?: number;
  /** Without a failure: the model archive, zipped. */
  archive?: ModelArchive;
  /** Without a failure: each fitted component's checkpoint as JSON text, in `fitted` order. */
  checkpointTexts?: string[];
}

/** What runs fit jobs: on this thread one at a time, or a worker pool `concurrency` wide. */
export interface ComponentFitter {
  readonly concurrency: number;
  fit(job: FitJob, signal?: AbortSignal): Promise<FitOutcome>;
}

/** Fits on the calling thread (tests, `--worker-threads 0`). */
export const inThreadFitter: ComponentFitter = {
  concurrency: 1,
  fit: async (job) => fitComponents(job),
};

/** Runs one fit job; never throws (a failure is part of the outcome, as the reference reports it). */
export function fitComponents(job: FitJob): FitOutcome {
  // process.hrtime, not performance: performance's first use on a worker thread loads perf_hooks (~15 ms).
  const started = process.hrtime.bigint();
  const outcome: FitOutcome = { fitted: [], components: [] };
  const models: Array<{ component: string; model: ComponentModelFile }> = [];
  let current = "";
  try {
    const trainer = resolveTrainers([job.trainerName])[0]!;
    const previous = new Map(job.previous);
    const scaled = applyScale(job.input, job.scale);
    const xTrain = takeRows(scaled, job.trainRows);
    const xTest = takeRows(scaled, job.testRows);
    const testTimestamps = takeElements(job.timestamps, job.testRows);
    job.components.forEach((component, index) => {
      current = component;
      const y = job.labels[index]!;
      const yTest = takeElements(y, job.testRows);
      const model = trainer.fit(xTrain, takeElements(y, job.trainRows), {
        component,
        features: job.features,
        mainFeatureIndex: mainFeatureIndex(job.featureGroup, component, job.features),
        seed: job.seed,
        previous: previous.get(component),
      });
      const predictions = trainer.predict(model, xTest);
      const bad = vectorStats(predictions).nonFiniteCount;
      if (bad > 0) throw new Error(`${bad} of ${predictions.length} test predictions are NaN or infinite`);
      const maeWatts = meanAbsoluteError(yTest, predictions);
      const mapePercent = meanAbsolutePercentageError(yTest, predictions);
      // What the estimator serves is clamped at 0: the held-out errors metadata keeps exact, and the residuals
      // that calibrate the prediction intervals (split conformal), are those of the served predictions.
      const served = clampNonNegative(predictions);
      const heldOut = {
        maeWatts: meanAbsoluteError(yTest, served),
        mapePercent: meanAbsolutePercentageError(yTest, served),
        absResidualsSorted: sortedAbsoluteResiduals(yTest, served),
      };
      outcome.fitted.push(component);
      models.push({ component, model });
      outcome.components.push({ component, maeWatts, mapePercent, testPredictions: predictions, testTimestamps, heldOut });
    });
  } catch (error) {
    outcome.failure = { component: current, message: error instanceof Error ? error.message : String(error) };
  }
  outcome.elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (outcome.failure === undefined) archiveFits(job, models, outcome);
  return outcome;
}

// Serialises what the fits produced here, off the thread that publishes: the archive, its zip and the
// checkpoints (their largest parts are the fitted models, e.g. every tree or every training row).
function archiveFits(
  job: FitJob,
  models: ReadonlyArray<{ component: string; model: ComponentModelFile }>,
  outcome: FitOutcome,
): void {
  try {
    const trainer = resolveTrainers([job.trainerName])[0]!;
    const archive = buildModelArchive(trainer, job.archive, job.scale, models, outcome.components);
    archive.zip = createZip(archive.files);
    outcome.archive = archive;
    const decoder = new TextDecoder();
    outcome.checkpointTexts = models.map(({ component, model }) => {
      const file = archive.files.find((f) => f.name === componentModelFileName(component))!;
      const checkpoint = createCheckpoint(trainer.name, component, job.archive.nodeType, job.features, job.scale, model);
      return checkpointText(checkpoint, decoder.decode(file.data));
    });
  } catch (error) {
    outcome.failure = { component: "", message: error instanceof Error ? error.message : String(error) };
  }
}
