// The training procedure (reference Trainer.process, spec §5.3-5.4), once for all trainers:
// validate the request, then per node type MaxAbs scale on all its rows and one train/test split,
// then every trainer on it (run-trainer.ts).
import {
  distinctValues,
  fitMaxAbsScale,
  multiplyRows,
  rowsWhereEqual,
  takeElements,
  takeRows,
} from "../../../wasm-core/src/index.js";
import type { DataTable } from "../../domain/data-table.js";
import { assertEnergySource, componentsOf } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import { assertFeatureGroup, featuresOf } from "../../domain/feature-groups.js";
import {
  assertPathSegment,
  isOutputTypeName,
  type MetadataMachineSpec,
  type ModelGroup,
  type OutputTypeName,
} from "../../models/index.js";
import { type FitOutcome, inThreadFitter } from "./fit-components.js";
import { fitStartOrder, processFitDurations } from "./fit-durations.js";
import { finishTrainer, fitTrainer, type NodeTypeData, type RunContext } from "./run-trainer.js";
import { assertTestTimestamps, type SplitSpec, splitRows } from "./train-test-split.js";
import { resolveTrainers } from "./trainer-registry.js";
import { prepareTrainingTable } from "./training-table.js";
import type { TrainModelsDeps } from "./train-models-deps.js";
import type { TrainerResult, TrainModelsResult } from "./training-results.js";

export type { ComponentResult, TrainerResult, TrainModelsResult, TrainProgress } from "./training-results.js";
export type { TrainModelsDeps } from "./train-models-deps.js";

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

/** Node types index a pipeline's node_type_index.json and end model names: non-negative int32. */
const MAX_NODE_TYPE = 2 ** 31 - 1;

function assertNodeType(nodeType: number, field: string): void {
  if (!Number.isInteger(nodeType) || nodeType < 0 || nodeType > MAX_NODE_TYPE)
    throw new InvalidInputError(field, `expected an integer node type in [0, ${MAX_NODE_TYPE}], got ${nodeType}`);
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

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
  if (!isOutputTypeName(request.outputType)) {
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
  if (request.nodeType !== undefined) assertNodeType(request.nodeType, "node_type");
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
  for (const nodeType of nodeTypes) assertNodeType(nodeType, "table.node_type");

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
  const run: RunContext = {
    deps,
    group,
    features,
    components,
    featureGroup,
    seed,
    publishing,
    continueFromCheckpoint: request.continueFromCheckpoint === true,
    machineSpec: request.machineSpec,
    trainedAtSeconds: Math.round((deps.clock ?? Date.now)() / 1000),
    fitter: deps.fitter ?? inThreadFitter,
    durations: deps.fitDurations ?? processFitDurations,
    progress,
    total,
  };
  // Fits run ahead (a node type's trainers, at least twice the fitter's width, so workers stay busy while
  // the main thread publishes), started in the order that lets results publish soonest (fit-durations.ts);
  // results are reported and published strictly in node type x trainer order.
  const jobs = prepared.flatMap((data) => trainers.map((trainer) => ({ data, trainer })));
  const ahead = run.fitter.concurrency === 1 ? 1 : Math.max(2 * run.fitter.concurrency, trainers.length);
  const fits: Array<Promise<FitOutcome> | undefined> = [];
  const results: TrainerResult[] = [];
  try {
    for (let index = 0; index < jobs.length; index++) {
      await yieldToEventLoop();
      deps.signal?.throwIfAborted();
      const waiting: number[] = [];
      for (let next = index; next < Math.min(jobs.length, index + ahead); next++)
        if (fits[next] === undefined) waiting.push(next);
      const expected = (k: number) => run.durations.expectedMs(jobs[k]!.trainer.name, jobs[k]!.data.trainRows.length);
      const publishMs = publishing ? run.durations.expectedPublishMs() : 0;
      for (const next of fitStartOrder(waiting, index, expected, publishMs)) {
        const { data, trainer } = jobs[next]!;
        fits[next] = fitTrainer(trainer, data, run, deps.signal);
      }
      const { data, trainer } = jobs[index]!;
      const fitted = await fits[index]!;
      deps.signal?.throwIfAborted();
      const finishing = performance.now();
      const result = await finishTrainer(trainer, data, run, fitted);
      if (publishing && result.publishedLocation !== undefined) run.durations.recordPublish(performance.now() - finishing);
      results.push(result);
      deps.onResult?.(result);
    }
  } finally {
    // Fits started ahead of an abort settle quietly (fitTrainer never rejects).
    await Promise.all(fits.filter((fit) => fit !== undefined));
  }
  return { results, nodeTypes, rowCount: table.rowCount };
}
