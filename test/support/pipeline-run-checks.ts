// Checks the pipeline end-to-end tests make on a whole run: the models it published, the order its results
// stream in, and the files it leaves in the pipeline folder beside the models.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import type { ModelMetadata } from "../../services/generated/kepler/model/v1/model.js";
import { type MachineSpec, OutputType } from "../../services/generated/kepler/model/v1/types.js";
import type { PipelineRun } from "./pipeline-runs.js";

const key = (source: string, outputType: OutputType, featureGroup: string, modelName: string) =>
  `${source}/${outputType === OutputType.OUTPUT_TYPE_ABS_POWER ? "AbsPower" : "DynPower"}/${featureGroup}/${modelName}`;

/** What a run's models share: the node type and machine they were trained for, the sources and groups. */
export interface RunModels {
  readonly sources: readonly string[];
  readonly featureGroups: readonly string[];
  readonly nodeType: number;
  readonly machine: Pick<MachineSpec, "processor" | "cores">;
}

/**
 * Every published model of the run is in the registry's `models`, at its location, with the MAE the
 * trainer measured; each source and output type has models for exactly the valid feature groups.
 */
export function expectModelsOfRun(models: readonly ModelMetadata[], run: PipelineRun, expected: RunModels): void {
  const stored = new Map(
    models.map((m) => [key(m.location!.energySource, m.outputType, m.location!.featureGroup, m.modelName), m]),
  );
  for (const result of run.results) {
    const model = stored.get(key(result.energySource, result.outputType, result.featureGroup, result.modelName));
    expect(model, result.modelName).toBeDefined();
    expect(model?.maeWatts).toBe(Math.round(result.maeWatts * 100) / 100);
    expect(model?.nodeType).toBe(expected.nodeType);
    expect(model?.machineSpec).toMatchObject({ processor: expected.machine.processor, cores: expected.machine.cores });
  }
  for (const source of expected.sources) {
    for (const outputType of [OutputType.OUTPUT_TYPE_ABS_POWER, OutputType.OUTPUT_TYPE_DYN_POWER]) {
      const groups = models.filter((m) => m.location?.energySource === source && m.outputType === outputType);
      expect([...new Set(groups.map((m) => m.location?.featureGroup))].sort()).toEqual(expected.featureGroups);
    }
  }
}

/**
 * Tables are worked on side by side, yet the run reads as if they ran one after the other: each table's
 * results form one block with the trainers in order, AbsPower before DynPower of the same source and
 * group, and the train counter goes up by one per trainer, in stream order.
 */
export function expectTablesInStreamOrder(run: PipelineRun, trainerNames: readonly string[], tableCount: number): void {
  const tableOf = (r: (typeof run.results)[number]) => `${r.energySource}/${r.featureGroup}/${r.outputType}`;
  const blocks: string[] = [];
  for (const result of run.results) if (blocks.at(-1) !== tableOf(result)) blocks.push(tableOf(result));
  expect(blocks).toHaveLength(new Set(blocks).size);
  expect(blocks).toHaveLength(tableCount);
  for (const block of blocks) {
    expect(run.results.filter((r) => tableOf(r) === block).map((r) => r.trainerName)).toEqual(trainerNames);
  }
  for (let i = 0; i < blocks.length; i += 2) {
    expect([
      blocks[i]!.endsWith(`/${OutputType.OUTPUT_TYPE_ABS_POWER}`),
      blocks[i + 1]!.endsWith(`/${OutputType.OUTPUT_TYPE_DYN_POWER}`),
    ]).toEqual([true, true]);
    expect(blocks[i]!.split("/").slice(0, 2)).toEqual(blocks[i + 1]!.split("/").slice(0, 2));
  }
  const trainedCounts = run.progress.filter((p) => p.stage === "train" && p.message.startsWith("trained ")).map((p) => p.done);
  expect(trainedCounts).toEqual(Array.from({ length: tableCount * trainerNames.length }, (_, i) => i + 1));
}

/**
 * The pipeline folder holds the run's metadata.json (the reference's keys, in order), and per source and
 * output type the model table: one row per published model.
 */
export async function expectPipelineFolder(
  folder: string,
  run: PipelineRun,
  sources: readonly string[],
  modelsPerTable: number,
): Promise<void> {
  const metadata = JSON.parse(run.summary.metadataJson);
  expect(Object.keys(metadata)).toEqual([
    "name",
    "isolator",
    "extractor",
    "abs_trainers",
    "dyn_trainers",
    "metric_type",
    "init_time",
    "last_update_time",
    "isolators",
  ]);
  expect(metadata.init_time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  expect(await readFile(join(folder, "metadata.json"), "utf8")).toBe(run.summary.metadataJson);
  for (const source of sources) {
    for (const outputType of ["AbsPower", "DynPower"]) {
      const table = (await readFile(join(folder, `${source}_${outputType}_model_metadata.csv`), "utf8")).trimEnd().split("\n");
      expect(table[0]).toMatch(/^,model_name,model_class,model_file,features,fe_files,output_type,mae,mape,/);
      expect(table).toHaveLength(1 + modelsPerTable);
    }
  }
}
