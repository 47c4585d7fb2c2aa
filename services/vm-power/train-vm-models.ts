// Trains VM models (GuestOSOnly / GuestOSPerf, AbsPower, the rapl-sysfs zones) per node type, each with
// its machine spec (the vCPU count as cores) in metadata.json, so selection by a VM's spec finds the model
// of its size. Publishing and node-type indexing are the caller's (a registry, or a local folder).
import type { FeatureGroupName } from "../domain/feature-groups.js";
import type { ModelArchive, OutputTypeName } from "../models/index.js";
import type { NodeSpec } from "../node-types/index.js";
import { trainModels } from "../trainer/domain/train-models.js";
import type { TrainerResult } from "../trainer/domain/training-results.js";
import { isolateVmIdle, type VmIdleWatts } from "./vm-idle-isolation.js";
import { buildVmTrainingTable, type VmMapping, type VmQueryResults, type VmTable } from "./vm-training-table.js";

/** Trainers that extrapolate to workload mixes never seen in training (trees, neighbours and polynomials do not). */
export const DEFAULT_VM_TRAINERS = ["LinearRegressionTrainer", "SGDRegressorTrainer"] as const;
export const DEFAULT_VM_PIPELINE = "vm-kepler-0.10";

export interface TrainVmModelsRequest {
  results: VmQueryResults;
  mapping: VmMapping;
  featureGroups: readonly FeatureGroupName[];
  /** AbsPower (default), and DynPower: each VM's power minus its share at rest (vm-idle-isolation.ts). */
  outputTypes?: readonly OutputTypeName[];
  trainerNames: readonly string[];
  pipelineName: string;
  seed?: number;
}

export interface TrainVmModelsDeps {
  nodeTypeOf(machine: string, spec: NodeSpec): Promise<number>;
  publishModel(archive: ModelArchive): Promise<void>;
}

export interface TrainVmModelsResult {
  tables: Map<FeatureGroupName, VmTable>;
  results: Array<TrainerResult & { featureGroup: FeatureGroupName; outputType: OutputTypeName }>;
  /** The idle watts per zone taken off each VM for DynPower (empty without DynPower). */
  idle: VmIdleWatts;
}

/** Builds the table of each group and trains every trainer on every node type (see the file comment). */
export async function trainVmModels(request: TrainVmModelsRequest, deps: TrainVmModelsDeps): Promise<TrainVmModelsResult> {
  const tables = new Map<FeatureGroupName, VmTable>();
  const results: TrainVmModelsResult["results"] = [];
  const idle: VmIdleWatts = new Map();
  const outputTypes = request.outputTypes ?? ["AbsPower"];
  for (const featureGroup of request.featureGroups) {
    const vmTable = await buildVmTrainingTable(request.results, {
      mapping: request.mapping,
      featureGroup,
      nodeTypeOf: deps.nodeTypeOf,
    });
    tables.set(featureGroup, vmTable);
    for (const group of vmTable.nodeTypes) {
      const { spec } = group;
      for (const outputType of outputTypes) {
        let table = group.table;
        if (outputType === "DynPower") {
          const isolated = isolateVmIdle(group);
          table = isolated.table;
          for (const [vm, watts] of isolated.idle) idle.set(vm, watts);
        }
        const trained = await trainModels(
          {
            table,
            energySource: "rapl-sysfs",
            featureGroup,
            outputType,
            trainerNames: request.trainerNames,
            nodeType: group.nodeType,
            seed: request.seed ?? 0,
            pipelineName: request.pipelineName,
            machineSpec: {
              processor: String(spec.processor),
              cores: Number(spec.cores),
              chips: Number(spec.chips),
              memory: Number(spec.memory),
              frequency: Number(spec.frequency),
            },
          },
          { publishModel: deps.publishModel },
        );
        for (const result of trained.results) results.push({ ...result, featureGroup, outputType });
      }
    }
  }
  return { tables, results, idle };
}
