// What an accuracy report shows, gathered from a pipeline folder and a recording: every AbsPower model
// applied to the recording's held-out rows (the same extraction, row choice, predictor and wasm-core errors
// as `kepler-model evaluate`, so the numbers agree; in-sample only when asked), each trainer's best model's
// predictions over time with their prediction intervals, and the pipeline's data summary (node types,
// window, rows, valid groups, isolator, idle power).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type DataTable, findColumn, getColumn } from "../../services/domain/data-table.js";
import { assertEnergySource, type EnergySource } from "../../services/domain/energy-sources.js";
import { assertFeatureGroup, featuresOf, mainFeatureIndex } from "../../services/domain/feature-groups.js";
import type { PrometheusResponse } from "../../services/domain/prometheus-response.js";
import {
  type ComponentError,
  type ComponentPredictions,
  componentError,
  predictTable,
} from "../../services/estimator/domain/evaluate-predictor.js";
import { loadModelFolder } from "../../services/estimator/model-folder-predictor.js";
import { rowsToScore, type ScoredRowsKind } from "../../services/estimator/domain/scored-rows.js";
import { calibrationOf } from "../../services/models/index.js";
import { summarizeResponse } from "../../services/extractor/domain/summarize-response.js";
import type { ModelFolderEntry } from "../../services/models/list-model-folders.js";
import { conformalHalfWidth, countCovered, predictionBounds, vectorStats } from "../../wasm-core/src/index.js";
import { type Extractor, evaluationTable } from "../commands/evaluate.js";

/** One model's errors on the recording. */
export interface ReportModel {
  readonly energySource: EnergySource;
  readonly featureGroup: string;
  readonly trainer: string;
  readonly modelName: string;
  readonly rowCount: number;
  /** Which rows were scored (see `kepler-model evaluate`). */
  readonly scoredRows: ScoredRowsKind;
  /** The largest component MAE (the reference's score), watts. */
  readonly maeWatts: number;
  /** metadata.json `held_out.mae`, the error the registry's selection compares; null when not stored. */
  readonly storedHeldOutMaeWatts: number | null;
  readonly components: readonly ComponentError[];
  /** The lowest MAE of its source on the scored rows (held-out by default: the model the registry selects). */
  readonly chosen: boolean;
}

/** One component's prediction intervals on the scored rows (split conformal, the model's stored residuals). */
export interface ComponentIntervals {
  readonly lowerWatts: Float64Array;
  readonly upperWatts: Float64Array;
  readonly halfWidthWatts: number;
  /** Scored rows whose measured power lies inside its interval. */
  readonly coveredRows: number;
  /** Number of calibration residuals the half width comes from. */
  readonly calibrationRows: number;
}

/** A trainer's best model on the recording, with what it predicted. */
export interface TrainerSeries {
  readonly trainer: string;
  readonly model: ReportModel;
  readonly timestamps: Float64Array;
  readonly predictions: readonly ComponentPredictions[];
  /** The group's main feature per component (residual against load), or undefined when it has none. */
  readonly mainFeature: ReadonlyMap<string, { name: string; values: Float64Array }>;
  /** Prediction intervals per component at the report's level; empty when the model stores no calibration. */
  readonly intervals: ReadonlyMap<string, ComponentIntervals>;
}

/** What one model predicted on its scored rows (the per-row predictions CSV). */
export interface ModelPredictions {
  readonly model: ReportModel;
  readonly timestamps: Float64Array;
  readonly predictions: readonly ComponentPredictions[];
}

export interface SourceReport {
  readonly energySource: EnergySource;
  /** Ordered by MAE. */
  readonly models: readonly ReportModel[];
  /** Every model's per-row predictions, in `models` order. */
  readonly predictions: readonly ModelPredictions[];
  /** Components measured at 0 W on every scored row (core, uncore on many machines): the charts leave them out. */
  readonly emptyComponents: readonly string[];
  /** One per trainer, the trainers in MAE order. */
  readonly series: readonly TrainerSeries[];
  /** Idle power per component: the stored profile's (min + max) / 2 x units, else the recording's minimum. */
  readonly idle: ReadonlyArray<{ component: string; watts: number; from: "profile" | "recording minimum" }>;
}

export interface ReportData {
  readonly pipelineName: string;
  /** Nominal coverage of the plotted prediction intervals. */
  readonly intervalLevel: number;
  readonly input: string;
  readonly metadata: Record<string, unknown>;
  readonly nodeTypes: ReadonlyArray<{ nodeType: string; spec: unknown; members: unknown }>;
  readonly windowSeconds: readonly [number, number] | undefined;
  readonly validFeatureGroups: readonly string[];
  readonly sources: readonly SourceReport[];
  /** Models that could not be applied to the recording, and why. */
  readonly skipped: ReadonlyArray<{ modelName: string; where: string; reason: string }>;
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, "utf8"));
  } catch {
    return undefined;
  }
}

const trainerOf = (modelName: string) => modelName.replace(/_\d+$/, "");

// Each calibrated component's interval bounds at `level` around the predictions, and how many rows they cover.
function intervalsOf(
  predictions: readonly ComponentPredictions[],
  residuals: ReadonlyMap<string, Float64Array> | undefined,
  level: number,
): Map<string, ComponentIntervals> {
  const intervals = new Map<string, ComponentIntervals>();
  for (const { component, measured, predicted } of predictions) {
    const sorted = residuals?.get(component);
    if (sorted === undefined) continue;
    const halfWidthWatts = conformalHalfWidth(sorted, level);
    const { lowerWatts, upperWatts } = predictionBounds(predicted, halfWidthWatts);
    const coveredRows = countCovered(measured, lowerWatts, upperWatts);
    intervals.set(component, { lowerWatts, upperWatts, halfWidthWatts, coveredRows, calibrationRows: sorted.length });
  }
  return intervals;
}
function isAllZero(values: Float64Array): boolean {
  if (values.length === 0) return false;
  const { min, max } = vectorStats(values);
  return min === 0 && max === 0;
}
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Gathers the report of `models` (a pipeline's AbsPower model folders) on `response`. */
export async function collectReport(
  modelPath: string,
  pipelineName: string,
  input: string,
  response: PrometheusResponse,
  models: readonly ModelFolderEntry[],
  options: {
    extractor: Extractor;
    /** Score every row (labelled in-sample) instead of the held-out rows. */
    inSample?: boolean;
    /** Nominal coverage of the intervals; default 0.9. */
    intervalLevel?: number;
    onModel?: (model: ModelFolderEntry, index: number) => void;
  },
): Promise<ReportData> {
  const intervalLevel = options.intervalLevel ?? 0.9;
  const pipelinePath = join(modelPath, pipelineName);
  const metadata = ((await readJson(join(pipelinePath, "metadata.json"))) ?? {}) as Record<string, unknown>;
  const index = (await readJson(join(pipelinePath, "node_type_index.json"))) as
    Record<string, Record<string, unknown>> | undefined;
  const nodeTypes = Object.entries(index ?? {}).map(([nodeType, entry]) => ({
    nodeType,
    spec: entry?.attrs ?? {},
    members: entry?.members ?? [],
  }));

  const tables = new Map<string, Promise<DataTable>>();
  const evaluated: Array<{
    model: ReportModel;
    table: DataTable;
    predictions: ComponentPredictions[];
    residuals: ReadonlyMap<string, Float64Array> | undefined;
  }> = [];
  const skipped: Array<{ modelName: string; where: string; reason: string }> = [];
  for (const [position, entry] of models.entries()) {
    options.onModel?.(entry, position);
    const where = `${entry.energySource}/${entry.outputType}/${entry.featureGroup}`;
    try {
      const energySource = assertEnergySource(entry.energySource, "energy_source");
      const group = { energySource, outputType: entry.outputType, featureGroup: entry.featureGroup };
      const key = `${energySource}/${entry.outputType}/${entry.featureGroup}`;
      if (!tables.has(key)) tables.set(key, evaluationTable(response, group, { extractor: options.extractor, isolator: "min" }));
      const table = await tables.get(key)!;
      const loaded = await loadModelFolder(entry.folderPath, energySource);
      const scored = rowsToScore(table, loaded.metadata, options.inSample === true);
      const predictions = predictTable(loaded.predictor, scored.table, loaded.features);
      if (predictions.length === 0) throw new Error("the recording measures none of the model's components");
      const components = predictions.map(componentError);
      evaluated.push({
        model: {
          energySource,
          featureGroup: entry.featureGroup,
          trainer: trainerOf(entry.modelName),
          modelName: entry.modelName,
          rowCount: scored.table.rowCount,
          scoredRows: scored.kind,
          maeWatts: Math.max(...components.map((c) => c.maeWatts)),
          storedHeldOutMaeWatts: scored.stored?.maeWatts ?? null,
          components,
          chosen: false,
        },
        table: scored.table,
        predictions,
        residuals: calibrationOf(loaded.metadata),
      });
    } catch (error) {
      skipped.push({ modelName: entry.modelName, where, reason: message(error) });
    }
  }

  const sources: SourceReport[] = [];
  for (const energySource of [...new Set(evaluated.map((e) => e.model.energySource))].sort()) {
    const ofSource = evaluated
      .filter((e) => e.model.energySource === energySource)
      .sort((a, b) => a.model.maeWatts - b.model.maeWatts || a.model.modelName.localeCompare(b.model.modelName));
    const ranked = ofSource.map((e, i) => ({ ...e, model: { ...e.model, chosen: i === 0 } }));
    const series: TrainerSeries[] = [];
    for (const e of ranked) {
      if (series.some((s) => s.trainer === e.model.trainer)) continue;
      const mainFeature = new Map<string, { name: string; values: Float64Array }>();
      for (const { component } of e.predictions) {
        const group = assertFeatureGroup(e.model.featureGroup);
        const features = featuresOf(group);
        const name = features[mainFeatureIndex(group, component, features)];
        if (name !== undefined && findColumn(e.table, name) >= 0)
          mainFeature.set(component, { name, values: getColumn(e.table, name) });
      }
      series.push({
        trainer: e.model.trainer,
        model: e.model,
        timestamps: e.table.timestamps,
        predictions: e.predictions,
        mainFeature,
        intervals: intervalsOf(e.predictions, e.residuals, intervalLevel),
      });
    }
    const profile = (await readJson(join(pipelinePath, "profile", `${energySource}.json`))) as
      Record<string, Record<string, { min_watt: number; max_watt: number; "#unit": number }>> | undefined;
    const first = ranked[0]!;
    const idle = first.predictions.map(({ component, measured }) => {
      const stored = profile?.[component]?.["0"];
      return stored === undefined
        ? { component, watts: vectorStats(measured).min, from: "recording minimum" as const }
        : { component, watts: ((stored.min_watt + stored.max_watt) / 2) * stored["#unit"], from: "profile" as const };
    });
    const measuredOnce = new Map<string, Float64Array>();
    for (const e of ranked)
      for (const p of e.predictions) if (!measuredOnce.has(p.component)) measuredOnce.set(p.component, p.measured);
    const emptyComponents = [...measuredOnce].filter(([, measured]) => isAllZero(measured)).map(([component]) => component);
    sources.push({
      energySource,
      models: ranked.map((e) => e.model),
      predictions: ranked.map((e) => ({ model: e.model, timestamps: e.table.timestamps, predictions: e.predictions })),
      emptyComponents,
      series,
      idle,
    });
  }

  const timestamps = evaluated.flatMap((e) => (e.table.rowCount > 0 ? [e.table.timestamps[0]!, e.table.timestamps.at(-1)!] : []));
  const summary = summarizeResponse(response);
  return {
    pipelineName,
    intervalLevel,
    input,
    metadata,
    nodeTypes,
    windowSeconds: timestamps.length === 0 ? undefined : [Math.min(...timestamps), Math.max(...timestamps)],
    validFeatureGroups: summary.validFeatureGroups.reference,
    sources,
    skipped,
  };
}
