// One trainer on one node type (reference Trainer.process body, spec §5.3 steps 3-7): fit every
// component on the training rows, predict the test rows, MAE/MAPE, then archive, publish, checkpoint.
import {
  applyScale,
  type Matrix,
  meanAbsoluteError,
  meanAbsolutePercentageError,
  takeElements,
  takeRows,
  vectorStats,
} from "../../../wasm-core/src/index.js";
import { type FeatureGroupName, mainFeatureIndex } from "../../domain/feature-groups.js";
import {
  type ComponentModelFile,
  type MetadataMachineSpec,
  type ModelGroup,
  modelNameOf,
  WEIGHT_FILE,
} from "../../models/index.js";
import { buildModelArchive } from "./build-model-archive.js";
import type { TrainModelsDeps } from "./train-models.js";
import type { TrainerImplementation } from "./trainer.js";
import type { ComponentResult, TrainerResult, TrainProgress } from "./training-results.js";

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
  /** Component fits done so far over the whole run, for progress events. */
  progress: { done: number };
  total: number;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Fits, evaluates, archives and publishes one trainer on one node type; failures become a failed result. */
export async function runTrainer(trainer: TrainerImplementation, data: NodeTypeData, run: RunContext): Promise<TrainerResult> {
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
  const fitted: Array<{ component: string; model: ComponentModelFile }> = [];
  const componentResults: ComponentResult[] = [];
  let current = "";
  try {
    const checkpoints = await loadCheckpoints(trainer, data, run);
    // A continued trainer must see features scaled exactly as its checkpoint was.
    const scale = checkpoints.scale ?? data.scale;
    const scaled = applyScale(data.input, scale);
    const xTrain = takeRows(scaled, data.trainRows);
    const xTest = takeRows(scaled, data.testRows);
    const testTimestamps = takeElements(data.timestamps, data.testRows);
    for (const component of run.components) {
      current = component;
      const subject = `${trainer.name}/${component}`;
      report(subject, `fitting node type ${data.nodeType}`);
      const y = data.labels.get(component) as Float64Array;
      const yTest = takeElements(y, data.testRows);
      const model = trainer.fit(xTrain, takeElements(y, data.trainRows), {
        component,
        features: run.features,
        mainFeatureIndex: mainFeatureIndex(run.featureGroup, component, run.features),
        seed: run.seed,
        previous: checkpoints.models.get(component),
      });
      const predictions = trainer.predict(model, xTest);
      const bad = vectorStats(predictions).nonFiniteCount;
      if (bad > 0) throw new Error(`${bad} of ${predictions.length} test predictions are NaN or infinite`);
      const maeWatts = meanAbsoluteError(yTest, predictions);
      const mapePercent = meanAbsolutePercentageError(yTest, predictions);
      fitted.push({ component, model });
      componentResults.push({ component, maeWatts, mapePercent, testPredictions: predictions, testTimestamps });
      run.progress.done++;
      report(subject, `fitted node type ${data.nodeType}: MAE ${maeWatts.toFixed(2)} W`);
    }
    current = "";
    const archive = buildModelArchive(
      trainer,
      {
        group: run.group,
        features: run.features,
        nodeType: data.nodeType,
        machineSpec: run.machineSpec,
      },
      scale,
      fitted,
      componentResults,
    );
    const result: TrainerResult = {
      ...base,
      outcome: "succeeded",
      components: componentResults,
      maeWatts: Math.max(...componentResults.map((c) => c.maeWatts)),
      mapePercent: Math.max(...componentResults.map((c) => c.mapePercent)),
      hasWeights: archive.files.some((f) => f.name === WEIGHT_FILE),
      archive,
    };
    if (run.publishing) {
      report(modelName, `publishing ${modelName}`, "publish");
      await run.deps.publishModel?.(archive);
      for (const { component, model } of fitted) {
        await run.deps.writeCheckpoint?.(run.group, {
          format_version: 1,
          trainer: trainer.name,
          component,
          node_type: data.nodeType,
          features: run.features,
          scale: Array.from(scale),
          model,
        });
      }
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
