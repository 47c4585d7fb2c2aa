// The model archive of one trained trainer x node type: metadata.json (reference keys, rounded metrics, plus
// the held-out rows' timestamps, exact errors and calibration residuals),
// the component dict, scaler, feature-engineering files, component models and weight.json.
import {
  type ComponentModelFile,
  createModelArchive,
  createModelMetadata,
  type MetadataMachineSpec,
  type ModelArchive,
  type ModelGroup,
  type ModelLocation,
  modelNameOf,
  type WeightJson,
} from "../../models/index.js";
import type { TrainerImplementation } from "./trainer.js";
import type { ComponentResult } from "./training-results.js";
import { buildInfo } from "../../domain/build-info.js";

/** What the archive needs besides the fitted models. */
export interface ArchiveContext {
  group: ModelGroup;
  features: readonly string[];
  nodeType: number;
  machineSpec?: MetadataMachineSpec;
  /** Rows the components are fitted on (metadata `training.row_count`). */
  trainRowCount?: number;
  /** When the Train call started (metadata `training.time_seconds`); with trainRowCount. */
  trainedAtSeconds?: number;
}

/** Builds the archive; weight.json only for weight-capable trainers. */
export function buildModelArchive(
  trainer: TrainerImplementation,
  context: ArchiveContext,
  scale: Float64Array,
  fitted: ReadonlyArray<{ component: string; model: ComponentModelFile }>,
  accuracy: readonly ComponentResult[],
): ModelArchive {
  const location: ModelLocation = { ...context.group, modelName: modelNameOf(trainer.name, context.nodeType) };
  const featureEngineering = trainer.featureEngineering(context.features.length);
  let weights: WeightJson | undefined;
  const toWeights = trainer.toWeights;
  if (trainer.weightCapable && toWeights !== undefined) {
    weights = {};
    for (const { component, model } of fitted) weights[component] = toWeights(model, context.features, scale);
  }
  const metadata = createModelMetadata({
    modelName: location.modelName,
    modelClass: trainer.modelClass,
    features: context.features,
    feFiles: featureEngineering.map((fe) => fe.name),
    outputType: context.group.outputType,
    components: accuracy,
    nodeType: context.nodeType,
    machineSpec: context.machineSpec,
    ...(context.trainRowCount === undefined
      ? {}
      : {
          training: { rowCount: context.trainRowCount, timeSeconds: context.trainedAtSeconds ?? Math.round(Date.now() / 1000) },
        }),
    trainedByVersion: buildInfo().version,
    heldOut: {
      timestampsSeconds: accuracy[0]?.testTimestamps ?? [],
      components: accuracy.map((c) => ({ component: c.component, ...c.heldOut })),
    },
  });
  return createModelArchive(location, {
    metadata,
    features: context.features,
    scaler: { kind: "max_abs_scaler", format_version: 1, features: [...context.features], scale: Array.from(scale) },
    featureEngineering,
    components: fitted.map(({ component, model }) => [component, model] as const),
    weights,
  });
}
