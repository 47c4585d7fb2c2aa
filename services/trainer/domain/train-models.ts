// The training procedure (reference Trainer.process, spec §5.3-5.4), once for all trainers:
// per node type, MaxAbs scale on all its rows, one train/test split, then per trainer and component
// fit, predict the test rows, MAE and MAPE; build the archive, publish it and write checkpoints.
import {
  applyScale,
  distinctValues,
  fitMaxAbsScale,
  type Matrix,
  meanAbsoluteError,
  meanAbsolutePercentageError,
  multiplyRows,
  rowsWhereEqual,
  takeElements,
  takeRows,
  vectorStats,
} from "../../../wasm-core/src/index.js";
import type { DataTable } from "../../domain/data-table.js";
import { assertEnergySource, componentsOf } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import { assertFeatureGroup, featuresOf, mainFeatureIndex } from "../../domain/feature-groups.js";
import {
  assertPathSegment,
  type Checkpoint,
  type ComponentModelFile,
  createModelArchive,
  createModelMetadata,
  type MetadataMachineSpec,
  type ModelArchive,
  type ModelGroup,
  type ModelLocation,
  modelNameOf,
  type OutputTypeName,
  type WeightJson,
} from "../../models/index.js";
import { assertTestTimestamps, type SplitSpec, splitRows } from "./train-test-split.js";
import type { TrainerImplementation } from "./trainer.js";
import { resolveTrainers } from "./trainer-registry.js";
import { prepareTrainingTable } from "./training-table.js";

/** What to train. */
export interface TrainModelsRequest {
  table: DataTable;
  energySource: string;
  featureGroup: string;
  /** Model features instead of the group's list (required for ThirdParty). */
  featureNames?: readonly string[];
  outputType: OutputTypeName;
  trainerNames: readonly string[];
  /** Node type for every row, replacing the table's node_type column. */
  nodeType?: number;
  /** Seed of the split and of SGD; 0 when unset. */
  seed?: number;
  /** Explicit test rows by timestamp (Unix seconds) instead of a seeded draw. */
  testTimestampsSeconds?: readonly number[];
  /** Pipeline to publish into; required when publishing. */
  pipelineName?: string;
  machineSpec?: MetadataMachineSpec;
  /** Continue from this pipeline's checkpoints (SGD warm start; closed-form trainers refit). */
  continueFromCheckpoint?: boolean;
  /** Train and report only: no archive, no checkpoint. */
  skipPublish?: boolean;
}

/** Accuracy of one component on the test rows, exact (metadata.json holds them rounded to 2 decimals). */
export interface ComponentResult {
  component: string;
  maeWatts: number;
  mapePercent: number;
  /** Test-row predictions, in test-row order. */
  testPredictions: Float64Array;
  testTimestamps: Float64Array;
}

/** The outcome of one trainer on one node type. */
export interface TrainerResult {
  trainerName: string;
  nodeType: number;
  modelName: string;
  outcome: "succeeded" | "failed";
  failureReason?: string;
  components: ComponentResult[];
  /** Max component MAE (exact). */
  maeWatts: number;
  /** Max component MAPE (exact). */
  mapePercent: number;
  trainRowCount: number;
  testRowCount: number;
  hasWeights: boolean;
  /** The archive built for a successful trainer (also when not published). */
  archive?: ModelArchive;
  publishedLocation?: ModelLocation;
}

/** One progress step. */
export interface TrainProgress {
  stage: "train" | "publish";
  /** `<trainer>/<component>` for fits, the model name for publishing. */
  subject: string;
  done: number;
  total: number;
  message: string;
}

/** The whole run. */
export interface TrainModelsResult {
  results: TrainerResult[];
  nodeTypes: number[];
  rowCount: number;
}

/** Side effects, all optional: where to publish, checkpoint storage, progress, a minimal logger. */
export interface TrainModelsDeps {
  publishModel?(archive: ModelArchive): Promise<void>;
  readCheckpoint?(group: ModelGroup, trainerName: string, component: string, nodeType: number): Promise<Checkpoint | undefined>;
  writeCheckpoint?(group: ModelGroup, checkpoint: Checkpoint): Promise<void>;
  onProgress?(event: TrainProgress): void;
  onResult?(result: TrainerResult): void;
  logger?: { warn(fields: object, message: string): void };
  /** Stops before the next trainer when aborted (a cancelled RPC); nothing more is published. */
  signal?: AbortSignal;
}

interface NodeTypeData {
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

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Trains every requested trainer for every node type of the table. */
export async function trainModels(request: TrainModelsRequest, deps: TrainModelsDeps = {}): Promise<TrainModelsResult> {
  const energySource = assertEnergySource(request.energySource);
  const featureGroup = assertFeatureGroup(request.featureGroup);
  const features =
    request.featureNames !== undefined && request.featureNames.length > 0
      ? [...request.featureNames]
      : [...featuresOf(featureGroup)];
  if (features.length === 0)
    throw new InvalidInputError("feature_names", `feature group ${featureGroup} needs explicit feature names`);
  if (request.outputType !== "AbsPower" && request.outputType !== "DynPower") {
    throw new InvalidInputError("output_type", `expected AbsPower or DynPower, got ${String(request.outputType)}`);
  }
  const trainers = resolveTrainers(request.trainerNames);
  const seed = request.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new InvalidInputError("seed", `expected an integer in [0, 2^32), got ${seed}`);
  const publishing = request.skipPublish !== true && deps.publishModel !== undefined;
  const pipelineName = request.pipelineName ?? "";
  if (publishing) {
    if (pipelineName === "") throw new InvalidInputError("pipeline_name", "required unless skip_publish is set");
    assertPathSegment(pipelineName, "pipeline_name");
  }
  const components = componentsOf(energySource);
  const table = prepareTrainingTable(request.table, features, components, request.nodeType);
  const split: SplitSpec =
    request.testTimestampsSeconds !== undefined && request.testTimestampsSeconds.length > 0
      ? { kind: "timestamps", testTimestampsSeconds: assertTestTimestamps(table.timestamps, request.testTimestampsSeconds) }
      : { kind: "seeded", seed };

  const nodeTypes = Array.from(distinctValues(table.nodeTypes));
  const nonInteger = nodeTypes.find((t) => !Number.isInteger(t));
  if (nonInteger !== undefined)
    throw new InvalidInputError("table.node_type", `node types must be integers, found ${nonInteger}`);

  // Everything numeric about a node type is prepared (and validated) before any trainer runs.
  const prepared: NodeTypeData[] = nodeTypes.map((nodeType) => {
    const rows = rowsWhereEqual(table.nodeTypes, nodeType);
    const raw = takeRows(table.features, rows);
    const timestamps = takeElements(table.timestamps, rows);
    const { trainRows, testRows } = splitRows(timestamps, split, nodeType);
    // As the reference: the scaler is fitted on the raw features, then applied to features x ratio.
    const scale = fitMaxAbsScale(raw);
    const input = table.ratio === undefined ? raw : multiplyRows(raw, takeElements(table.ratio, rows));
    const labels = new Map(components.map((c) => [c, takeElements(table.labels.get(c) as Float64Array, rows)]));
    return { nodeType, input, scale, labels, timestamps, trainRows, testRows };
  });

  const group: ModelGroup = { pipelineName, energySource, outputType: request.outputType, featureGroup };
  const total = prepared.length * trainers.length * components.length;
  const progress = { done: 0 };
  const results: TrainerResult[] = [];
  for (const data of prepared) {
    for (const trainer of trainers) {
      await yieldToEventLoop();
      deps.signal?.throwIfAborted();
      const result = await runTrainer(trainer, data, {
        request,
        deps,
        group,
        features,
        components,
        featureGroup,
        seed,
        publishing,
        progress,
        total,
      });
      results.push(result);
      deps.onResult?.(result);
    }
  }
  return { results, nodeTypes, rowCount: table.rowCount };
}

interface RunContext {
  request: TrainModelsRequest;
  deps: TrainModelsDeps;
  group: ModelGroup;
  features: string[];
  components: readonly string[];
  featureGroup: ReturnType<typeof assertFeatureGroup>;
  seed: number;
  publishing: boolean;
  progress: { done: number };
  total: number;
}

async function runTrainer(trainer: TrainerImplementation, data: NodeTypeData, run: RunContext): Promise<TrainerResult> {
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
    const archive = buildArchive(trainer, data, run, scale, fitted, componentResults);
    const result: TrainerResult = {
      ...base,
      outcome: "succeeded",
      components: componentResults,
      maeWatts: Math.max(...componentResults.map((c) => c.maeWatts)),
      mapePercent: Math.max(...componentResults.map((c) => c.mapePercent)),
      hasWeights: archive.files.some((f) => f.name === "weight.json"),
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
  if (run.request.continueFromCheckpoint !== true || !trainer.continuesFromCheckpoint || read === undefined) return { models };
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

function buildArchive(
  trainer: TrainerImplementation,
  data: NodeTypeData,
  run: RunContext,
  scale: Float64Array,
  fitted: ReadonlyArray<{ component: string; model: ComponentModelFile }>,
  accuracy: readonly ComponentResult[],
): ModelArchive {
  const location: ModelLocation = { ...run.group, modelName: modelNameOf(trainer.name, data.nodeType) };
  const featureEngineering = trainer.featureEngineering(run.features.length);
  let weights: WeightJson | undefined;
  const toWeights = trainer.toWeights;
  if (trainer.weightCapable && toWeights !== undefined) {
    weights = {};
    for (const { component, model } of fitted) weights[component] = toWeights(model, run.features, scale);
  }
  const metadata = createModelMetadata({
    modelName: location.modelName,
    modelClass: trainer.modelClass,
    features: run.features,
    feFiles: featureEngineering.map((fe) => fe.name),
    outputType: run.group.outputType,
    components: accuracy,
    nodeType: data.nodeType,
    machineSpec: run.request.machineSpec,
  });
  return createModelArchive(location, {
    metadata,
    features: run.features,
    scaler: { kind: "max_abs_scaler", format_version: 1, features: [...run.features], scale: Array.from(scale) },
    featureEngineering,
    components: fitted.map(({ component, model }) => [component, model] as const),
    weights,
  });
}
