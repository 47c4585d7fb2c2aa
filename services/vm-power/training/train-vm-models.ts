// Trains VM models (GuestOSOnly / GuestOSPerf, AbsPower, the rapl-sysfs zones) per node type, each with
// its machine spec (the vCPU count as cores) in metadata.json, so selection by a VM's spec finds the model
// of its size. Publishing, node-type indexing and the trainers themselves are the caller's (the CLI passes
// the trainer's trainModels), so this room does not reach into another service.
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import type { DataTable } from "../../domain/data-table.js";
import type { ModelArchive, OutputTypeName } from "../../models/index.js";
import type { NodeSpec } from "../../node-types/index.js";
import { isolateVmIdle, type VmIdleWatts } from "./vm-idle-isolation.js";
import { addHostContext, addLaggedColumns, laggedFeatures } from "./vm-feature-transforms.js";
import { HOST_CONTEXT_FEATURES } from "../host/host-context.js";
import { hostContextOf } from "./host-context-series.js";
import {
  buildVmTrainingTable,
  type NodeTypeTable,
  type VmMapping,
  type VmQueryResults,
  type VmTable,
} from "./vm-training-table.js";

/** Trainers that extrapolate to workload mixes never seen in training (trees, neighbours and polynomials do not). */
export const DEFAULT_VM_TRAINERS = ["LinearRegressionTrainer", "SGDRegressorTrainer"] as const;
export const DEFAULT_VM_PIPELINE = "vm-kepler-0.10";
/**
 * The lag columns double the features: they are kept only when they lower the test-split MAE by at least
 * this fraction, so noise alone (a few tenths of a percent either way where power does not lag) never does.
 */
export const LAG_MIN_MAE_GAIN = 0.05;

/** Whether a lagged model's test-split MAE is low enough against the plain one's to keep its lag columns. */
export function isLagWorthKeeping(laggedMaeWatts: number, plainMaeWatts: number): boolean {
  return laggedMaeWatts < plainMaeWatts * (1 - LAG_MIN_MAE_GAIN);
}

export interface TrainVmModelsRequest {
  results: VmQueryResults;
  mapping: VmMapping;
  featureGroups: readonly FeatureGroupName[];
  /** AbsPower (default), and DynPower: each VM's power minus its share at rest (vm-idle-isolation.ts). */
  outputTypes?: readonly OutputTypeName[];
  trainerNames: readonly string[];
  pipelineName: string;
  seed?: number;
  /**
   * Temporal transform (vm-train's default; off here unless set): also train each trainer with
   * `<feature>_lag1` columns (vm-feature-transforms.ts), both on the same rows, and publish the lagged one
   * where it lowers the MAE on the trainer's own test split (rows the fit never saw) by LAG_MIN_MAE_GAIN.
   * MAE, not MAPE: Kepler 0.10 gives an idle VM no idle share, so its near-zero watts dominate a percentage.
   */
  laggedFeatures?: boolean;
  /** Opt-in host context (host-context-series.ts): add the guest_host_<zone>_watts features; hosts of this many CPUs. */
  hostContext?: { hostCpus: number };
}

/** One training call: a node type's table, every trainer (the trainer's TrainModelsRequest has these fields). */
export interface VmTrainCall {
  table: DataTable;
  energySource: "rapl-sysfs";
  featureGroup: FeatureGroupName;
  outputType: OutputTypeName;
  trainerNames: readonly string[];
  nodeType: number;
  seed: number;
  pipelineName: string;
  machineSpec: { processor: string; cores: number; chips: number; memory: number; frequency: number };
  /** The model's features when not the group's (the lagged transform adds columns). */
  featureNames?: readonly string[];
}

/** What this room reads of a trainer's result to choose between plain and lagged. */
interface ComparableResult {
  trainerName: string;
  maeWatts: number;
  archive?: ModelArchive;
}

export interface TrainVmModelsDeps<R> {
  nodeTypeOf(machine: string, spec: NodeSpec): Promise<number>;
  publishModel(archive: ModelArchive): Promise<void>;
  /** Trains (and publishes through `publishModel`) every trainer of one call. */
  trainModels(call: VmTrainCall, deps: { publishModel(archive: ModelArchive): Promise<void> }): Promise<{ results: R[] }>;
}

export interface TrainVmModelsResult<R> {
  tables: Map<FeatureGroupName, VmTable>;
  /** `lagged`: the published model is the one with `<feature>_lag1` columns. */
  results: Array<R & { featureGroup: FeatureGroupName; outputType: OutputTypeName; lagged: boolean }>;
  /** The idle watts per zone taken off each VM for DynPower (empty without DynPower). */
  idle: VmIdleWatts;
}

/** Builds the table of each group and trains every trainer on every node type (see the file comment). */
export async function trainVmModels<R extends ComparableResult>(
  request: TrainVmModelsRequest,
  deps: TrainVmModelsDeps<R>,
): Promise<TrainVmModelsResult<R>> {
  const tables = new Map<FeatureGroupName, VmTable>();
  const results: TrainVmModelsResult<R>["results"] = [];
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
        let transformed: NodeTypeTable = { ...group, table };
        const features = [...vmTable.features];
        if (request.hostContext !== undefined) {
          transformed = addHostContext(
            transformed,
            hostContextOf(request.results, request.mapping, request.hostContext.hostCpus),
          );
          features.push(...HOST_CONTEXT_FEATURES);
        }
        const call: VmTrainCall = {
          table: transformed.table,
          ...(request.hostContext === undefined ? {} : { featureNames: features }),
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
        };
        if (request.laggedFeatures !== true) {
          const trained = await deps.trainModels(call, { publishModel: deps.publishModel });
          for (const result of trained.results) results.push({ ...result, featureGroup, outputType, lagged: false });
          continue;
        }
        // Both on the lagged table's rows (each VM's first row dropped), so both are scored on the same test rows.
        const widened = addLaggedColumns(transformed, vmTable.features).table;
        const plain = await deps.trainModels(
          { ...call, table: widened, featureNames: features },
          { publishModel: async () => {} },
        );
        const lagged = await deps.trainModels(
          { ...call, table: widened, featureNames: [...features, ...laggedFeatures(vmTable.features)] },
          { publishModel: async () => {} },
        );
        for (const result of plain.results) {
          const other = lagged.results.find((r) => r.trainerName === result.trainerName);
          const chosen = other !== undefined && isLagWorthKeeping(other.maeWatts, result.maeWatts) ? other : result;
          if (chosen.archive !== undefined) await deps.publishModel(chosen.archive);
          results.push({ ...chosen, featureGroup, outputType, lagged: chosen === other });
        }
      }
    }
  }
  return { tables, results, idle };
}
