// TrainIsolator (`trainer`, reference §4.5, "dynamic background power isolation"): background power is
// predicted by AbsPower models of another pipeline from the background containers' features, and each
// label keeps its share of node power minus that background.
import { type DataTable, getColumn } from "../../domain/data-table.js";
import type { EnergySource } from "../../domain/energy-sources.js";
import { FailedPreconditionError } from "../../domain/errors.js";
import {
  type FeatureGroupName,
  isKnownFeature,
  validExtraFeatureGroups,
  validFeatureGroups,
} from "../../domain/feature-groups.js";
import { alignOnTimestamps, dynamicPower, pearsonWithTarget, scaleByShare, vectorStats } from "../../../wasm-core/src/index.js";
import { type ModelScore, isBetterModel } from "./abs-model-choice.js";
import type { BackgroundModelSource, BackgroundPowerModel } from "./background-models.js";
import { type ContainerHints, backgroundSelector } from "./background-hints.js";
import { splitContainers } from "./container-split.js";
import { NODE_TYPE_COLUMN, componentOfColumn } from "./label-columns.js";
import { isRatioColumn, squeezeContainerTable } from "./squeeze.js";

export interface TrainIsolatorOptions {
  readonly energySource: EnergySource;
  /** The pipeline whose AbsPower models predict background power. */
  readonly absPipelineName: string;
  readonly hints: ContainerHints;
  /** Called before each model is evaluated. */
  readonly onModel?: (done: number, total: number, modelName: string) => void;
}

/** What the trainer isolator did. */
export interface TrainIsolation {
  readonly table: DataTable;
  readonly backgroundContainerNames: readonly string[];
  readonly targetContainerCount: number;
  readonly chosen: { readonly modelName: string; readonly featureGroup: string } & ModelScore;
  /** Rows where the predicted background exceeded node power (dynamic power clamped at 0), summed over labels. */
  readonly clampedCount: number;
  readonly notices: readonly string[];
}

/** The workload feature columns of a squeezed table: everything but ratios, labels and node_type. */
function featureColumnsOf(table: DataTable, labelColumns: readonly string[]): string[] {
  const excluded = new Set([...labelColumns, NODE_TYPE_COLUMN]);
  return table.columnNames.filter((column) => !excluded.has(column) && !isRatioColumn(column));
}

function columnsBlock(table: DataTable, columns: readonly string[]): Float64Array {
  const out = new Float64Array(table.rowCount * columns.length);
  columns.forEach((column, k) => {
    out.set(getColumn(table, column), k * table.rowCount);
  });
  return out;
}

/**
 * Isolates dynamic power with AbsPower models: the models of `absPipelineName` valid for the table's
 * features predict background power from the per-timestamp sum of the background containers' features
 * (zero where no background container runs, so the prediction is the model's idle power); the model is
 * chosen by the reference's MAE and 0.7 correlation rule; each label becomes label / node * max(0, node -
 * background). FailedPreconditionError when the pipeline has no usable model.
 */
export async function isolateWithAbsModels(
  table: DataTable,
  labelColumns: readonly string[],
  options: TrainIsolatorOptions,
  source: BackgroundModelSource,
): Promise<TrainIsolation> {
  const split = splitContainers(table, backgroundSelector(options.hints));
  const target = squeezeContainerTable(split.target, labelColumns);
  const features = featureColumnsOf(target, labelColumns);
  const groups = backgroundFeatureGroups(features);
  const loaded = await source.loadAbsPowerModels({
    pipelineName: options.absPipelineName,
    energySource: options.energySource,
    featureGroups: groups,
  });
  // A ThirdParty model (or one trained with third-party metrics) fits only data holding all its features.
  const have = new Set(features);
  const models = loaded.models.filter((model) => model.features.every((feature) => have.has(feature)));
  if (models.length === 0) {
    throw new FailedPreconditionError(
      `the trainer isolator found no AbsPower model of pipeline "${options.absPipelineName}" for ${options.energySource} in the feature groups of the data (${groups.join(", ") || "none"}): train that pipeline first or choose another isolator`,
    );
  }
  const rows = target.rowCount;
  const backgroundRows: DataTable = {
    columnNames: features,
    rowCount: rows,
    timestamps: target.timestamps,
    values:
      split.background === undefined
        ? new Float64Array(rows * features.length)
        : alignBackground(squeezeContainerTable(split.background, labelColumns), features, target.timestamps),
  };
  const targetFeatures = columnsBlock(target, features);
  const labels = labelColumns.map((column) => getColumn(target, column));

  let best: { model: BackgroundPowerModel; score: ModelScore; dynamic: Float64Array[]; clamped: number } | undefined;
  for (const [done, model] of models.entries()) {
    options.onModel?.(done, models.length, model.modelName);
    const predicted = await model.predict(backgroundRows);
    let clamped = 0;
    const dynamic = labelColumns.map((column, k) => {
      const background = predicted.get(componentOfColumn(column)) ?? new Float64Array(rows).fill(Number.NaN);
      const result = dynamicPower(labels[k]!, background);
      clamped += result.clampedCount;
      return result.values;
    });
    const score = { maeWatts: model.maeWatts, maxCorrelation: maxCorrelation(targetFeatures, rows, features.length, dynamic) };
    if (isBetterModel(best?.score, score)) best = { model, score, dynamic, clamped };
  }
  const chosen = best!;
  const values = target.values.slice();
  labelColumns.forEach((column, k) => {
    // Node power of a component is its one unit column here (the extractor sums packages), so the
    // share is 1 wherever the node draws power.
    const scaled = scaleByShare(labels[k]!, labels[k]!, chosen.dynamic[k]!);
    values.set(scaled, target.columnNames.indexOf(column) * rows);
  });
  return {
    table: { ...target, values },
    backgroundContainerNames: split.backgroundContainerNames,
    targetContainerCount: split.targetContainerCount,
    chosen: { modelName: chosen.model.modelName, featureGroup: chosen.model.featureGroup, ...chosen.score },
    clampedCount: chosen.clamped,
    notices: loaded.notices,
  };
}

/** The groups whose models can predict from these features: fixed lists covered, ThirdParty for custom metrics. */
function backgroundFeatureGroups(features: readonly string[]): FeatureGroupName[] {
  const thirdParty = features.some((feature) => !isKnownFeature(feature));
  return [...validFeatureGroups(features), ...validExtraFeatureGroups(features), ...(thirdParty ? ["ThirdParty" as const] : [])];
}

function alignBackground(background: DataTable, features: readonly string[], timestamps: Float64Array): Float64Array {
  return alignOnTimestamps(
    { rowCount: background.rowCount, values: columnsBlock(background, features), timestamps: background.timestamps },
    timestamps,
    0,
  );
}

/** The largest Pearson correlation of any target feature with any label's dynamic power; NaN counts as 0. */
function maxCorrelation(features: Float64Array, rows: number, featureCount: number, dynamic: readonly Float64Array[]): number {
  const correlations = dynamic.map((power) => pearsonWithTarget(features, rows, featureCount, power));
  const all = new Float64Array(correlations.length * featureCount);
  correlations.forEach((r, k) => {
    all.set(r, k * featureCount);
  });
  const { max } = vectorStats(all);
  return Number.isFinite(max) && max > 0 ? max : 0;
}
