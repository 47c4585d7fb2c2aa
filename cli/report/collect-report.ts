// What an accuracy report shows, gathered from a pipeline folder and a recording: every AbsPower model
// applied to the recording (the same extraction, predictor and wasm-core errors as `kepler-model
// evaluate`, so the numbers agree), each trainer's best model's predictions over time, and the pipeline's
// data summary (node types, window, rows, valid groups, isolator, idle power).
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
import { summarizeResponse } from "../../services/extractor/domain/summarize-response.js";
import type { ModelFolderEntry } from "../../services/models/list-model-folders.js";
import { vectorStats } from "../../wasm-core/src/index.js";
import { type Extractor, evaluationTable } from "../commands/evaluate.js";

/** One model's errors on the recording. */
export interface ReportModel {
  readonly energySource: EnergySource;
  readonly featureGroup: string;
  readonly trainer: string;
  readonly modelName: string;
  readonly rowCount: number;
  /** The largest component MAE (the reference's score), watts. */
  readonly maeWatts: number;
  readonly components: readonly ComponentError[];
  /** The lowest MAE of its source: the model selection would serve. */
  readonly chosen: boolean;
}

/** A trainer's best model on the recording, with what it predicted. */
export interface TrainerSeries {
  readonly trainer: string;
  readonly model: ReportModel;
  readonly timestamps: Float64Array;
  readonly predictions: readonly ComponentPredictions[];
  /** The group's main feature per component (residual against load), or undefined when it has none. */
  readonly mainFeature: ReadonlyMap<string, { name: string; values: Float64Array }>;
}

export interface SourceReport {
  readonly energySource: EnergySource;
  /** Ordered by MAE. */
  readonly models: readonly ReportModel[];
  /** One per trainer, the trainers in MAE order. */
  readonly series: readonly TrainerSeries[];
  /** Idle power per component: the stored profile's (min + max) / 2 x units, else the recording's minimum. */
  readonly idle: ReadonlyArray<{ component: string; watts: number; from: "profile" | "recording minimum" }>;
}

export interface ReportData {
  readonly pipelineName: string;
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
const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Gathers the report of `models` (a pipeline's AbsPower model folders) on `response`. */
export async function collectReport(
  modelPath: string,
  pipelineName: string,
  input: string,
  response: PrometheusResponse,
  models: readonly ModelFolderEntry[],
  options: { extractor: Extractor; onModel?: (model: ModelFolderEntry, index: number) => void },
): Promise<ReportData> {
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
  const evaluated: Array<{ model: ReportModel; table: DataTable; predictions: ComponentPredictions[] }> = [];
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
      const predictions = predictTable(loaded.predictor, table, loaded.features);
      if (predictions.length === 0) throw new Error("the recording measures none of the model's components");
      const components = predictions.map(componentError);
      evaluated.push({
        model: {
          energySource,
          featureGroup: entry.featureGroup,
          trainer: trainerOf(entry.modelName),
          modelName: entry.modelName,
          rowCount: table.rowCount,
          maeWatts: Math.max(...components.map((c) => c.maeWatts)),
          components,
          chosen: false,
        },
        table,
        predictions,
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
    sources.push({ energySource, models: ranked.map((e) => e.model), series, idle });
  }

  const timestamps = evaluated.flatMap((e) => (e.table.rowCount > 0 ? [e.table.timestamps[0]!, e.table.timestamps.at(-1)!] : []));
  const summary = summarizeResponse(response);
  return {
    pipelineName,
    input,
    metadata,
    nodeTypes,
    windowSeconds: timestamps.length === 0 ? undefined : [Math.min(...timestamps), Math.max(...timestamps)],
    validFeatureGroups: summary.validFeatureGroups.reference,
    sources,
    skipped,
  };
}
