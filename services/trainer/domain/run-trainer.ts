// One trainer on one node type (reference Trainer.process body, spec §5.3 steps 3-7): fit every
// component on the training rows, predict the test rows, MAE/MAPE and build the archive
// (fit-components.ts, possibly on a worker thread), then, back on the main thread and in trainer order,
// publish and checkpoint.
import type { Matrix } from "../../../wasm-core/src/index.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import {
  type ComponentModelFile,
  type MetadataMachineSpec,
  type ModelGroup,
  modelNameOf,
  WEIGHT_FILE,
} from "../../models/index.js";
import type { FitDurations } from "./fit-durations.js";
import type { ComponentFitter, FitOutcome } from "./fit-components.js";
import type { TrainModelsDeps } from "./train-models-deps.js";
import type { TrainerImplementation } from "./trainer.js";
import { trainerModuleOf } from "./trainer-registry.js";
import type { TrainerResult, TrainProgress } from "./training-results.js";

/** One node type's rows, prepared once and shared by all trainers. */
export interface NodeTypeData {
  nodeType: number;
  /** Features after the ratio rule, unscaled, this node type's rows. */
  input: Matrix;
  /** MaxAbs scale fitted on this node type's raw feature rows. */
  scale: Float64Array;
  labels: Map<string, Float64Array>;
  timestamps: Float64Array;
  trainRows: Uint32Array;
  testRows: Uint32Array;
}

/** What every trainer of a run shares. */
export interface RunContext {
  deps: TrainModelsDeps;
  group: ModelGroup;
  features: string[];
  components: readonly string[];
  featureGroup: FeatureGroupName;
  seed: number;
  publishing: boolean;
  continueFromCheckpoint: boolean;
  machineSpec?: MetadataMachineSpec;
  /** When this Train call started (metadata `training.time_seconds`), one value for all its models. */
  trainedAtSeconds: number;
  /** Runs the fits (this thread or a worker pool). */
  fitter: ComponentFitter;
  /** Fit times seen, to start the longest expected fits first. */
  durations: FitDurations;
  /** Component fits done so far over the whole run, for progress events. */
  progress: { done: number };
  total: number;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Starts one trainer's fits on one node type (checkpoints first); the returned promise never rejects. */
export async function fitTrainer(
  trainer: TrainerImplementation,
  data: NodeTypeData,
  run: RunContext,
  signal?: AbortSignal,
): Promise<FitOutcome> {
  try {
    const checkpoints = await loadCheckpoints(trainer, data, run);
    // A continued trainer must see features scaled exactly as its checkpoint was.
    const scale = checkpoints.scale ?? data.scale;
    const outcome = await run.fitter.fit(
      {
        trainerName: trainer.name,
        trainerModule: trainerModuleOf(trainer.name),
        input: data.input,
        scale,
        labels: run.components.map((c) => data.labels.get(c) as Float64Array),
        timestamps: data.timestamps,
        trainRows: data.trainRows,
        testRows: data.testRows,
        features: run.features,
        components: [...run.components],
        featureGroup: run.featureGroup,
        seed: run.seed,
        previous: Array.from(checkpoints.models),
        archive: {
          group: run.group,
          features: run.features,
          nodeType: data.nodeType,
          machineSpec: run.machineSpec,
          trainRowCount: data.trainRows.length,
          trainedAtSeconds: run.trainedAtSeconds,
        },
      },
      signal,
    );
    if (outcome.failure === undefined && outcome.elapsedMs !== undefined)
      run.durations.record(trainer.name, data.trainRows.length, outcome.elapsedMs);
    return outcome;
  } catch (error) {
    return { fitted: [], components: [], failure: { component: "", message: describeError(error) } };
  }
}

/**
 * Reports one trainer's fits in order, then publishes its archive and checkpoints; failures become a failed result.
 * Runs on the main thread in trainer order, so events and publishes are the same whatever ran the fits.
 */
export async function finishTrainer(
  trainer: TrainerImplementation,
  data: NodeTypeData,
  run: RunContext,
  outcome: FitOutcome,
): Promise<TrainerResult> {
  const modelName = modelNameOf(trainer.name, data.nodeType);
  const base = {
    trainerName: trainer.name,
    nodeType: data.nodeType,
    modelName,
    trainRowCount: data.trainRows.length,
    testRowCount: data.testRows.length,
  };
  const report = (subject: string, message: string, stage: TrainProgress["stage"] = "train") =>
    run.deps.onProgress?.({ stage, subject, done: run.progress.done, total: run.total, message });
  const { fitted, components: componentResults } = outcome;
  let current = "";
  try {
    for (const result of componentResults) {
      const subject = `${trainer.name}/${result.component}`;
      report(subject, `fitting node type ${data.nodeType}`);
      run.progress.done++;
      report(subject, `fitted node type ${data.nodeType}: MAE ${result.maeWatts.toFixed(2)} W`);
    }
    if (outcome.failure !== undefined) {
      current = outcome.failure.component;
      if (current !== "") report(`${trainer.name}/${current}`, `fitting node type ${data.nodeType}`);
      throw new Error(outcome.failure.message);
    }
    const archive = outcome.archive;
    if (archive === undefined) throw new Error("the fits came back without their archive");
    const result: TrainerResult = {
      ...base,
      outcome: "succeeded",
      components: componentResults,
      maeWatts: Math.max(...componentResults.map((c) => c.maeWatts)),
      mapePercent: Math.max(...componentResults.map((c) => c.mapePercent)),
      hasWeights: archive.files.some((f) => f.name === WEIGHT_FILE),
      // The files only: the zip (published) carries the time it was made.
      archive: { location: archive.location, files: archive.files },
    };
    if (run.publishing) {
      report(modelName, `publishing ${modelName}`, "publish");
      const texts = outcome.checkpointTexts;
      if (texts === undefined || texts.length !== fitted.length) throw new Error("the fits came back without their checkpoints");
      // The checkpoints (one file per component) are written while the model is published: neither waits
      // for the other, and a failed publish still keeps the fitted state to continue from.
      const checkpoints = Promise.all(
        fitted.map((component, index) =>
          run.deps.writeCheckpoint?.(run.group, {
            trainer: trainer.name,
            component,
            node_type: data.nodeType,
            text: texts[index]!,
          }),
        ),
      );
      const [published, written] = await Promise.allSettled([run.deps.publishModel?.(archive), checkpoints]);
      if (published.status === "rejected") throw published.reason;
      if (written.status === "rejected") throw written.reason;
      result.publishedLocation = archive.location;
    }
    return result;
  } catch (error) {
    const reason = current === "" ? describeError(error) : `${current}: ${describeError(error)}`;
    run.deps.logger?.warn({ trainer: trainer.name, nodeType: data.nodeType, reason }, "trainer failed");
    run.progress.done += run.components.length - fitted.length;
    report(`${trainer.name}/${current || "all"}`, `failed: ${reason}`);
    return {
      ...base,
      outcome: "failed",
      failureReason: reason,
      components: componentResults,
      maeWatts: Number.NaN,
      mapePercent: Number.NaN,
      hasWeights: false,
    };
  }
}

async function loadCheckpoints(
  trainer: TrainerImplementation,
  data: NodeTypeData,
  run: RunContext,
): Promise<{ scale?: Float64Array; models: Map<string, ComponentModelFile> }> {
  const models = new Map<string, ComponentModelFile>();
  const read = run.deps.readCheckpoint;
  if (!run.continueFromCheckpoint || !trainer.continuesFromCheckpoint || read === undefined) return { models };
  let scale: number[] | undefined;
  for (const component of run.components) {
    const checkpoint = await read(run.group, trainer.name, component, data.nodeType);
    // A checkpoint for other features, or fitted with another scale than the first one, is not continued.
    if (checkpoint === undefined || checkpoint.features.join(",") !== run.features.join(",")) continue;
    if (scale !== undefined && checkpoint.scale.join(",") !== scale.join(",")) continue;
    scale = checkpoint.scale;
    models.set(component, checkpoint.model);
  }
  return { scale: scale === undefined ? undefined : Float64Array.from(scale), models };
}
