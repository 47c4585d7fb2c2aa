// The result reported for a trainer that never got to train (its group's extraction or isolation failed, or
// the trainer service refused the call), in the shape of the trainer's own results.
import type { EnergySource } from "../../domain/energy-sources.js";
import type { FeatureGroupName } from "../../domain/feature-groups.js";
import { modelNameOf, type OutputTypeName } from "../../models/index.js";
import type { PipelineTrainerResult } from "./pipeline-peers.js";

/** What one trainer call trains for. */
export interface TrainTarget {
  readonly energySource: EnergySource;
  readonly featureGroup: FeatureGroupName;
  readonly outputType: OutputTypeName;
}

/** A failed result; node type -1 and no model name when the node type comes from the data. */
export function failedResult(
  trainerName: string,
  target: TrainTarget,
  nodeType: number | undefined,
  reason: string,
): PipelineTrainerResult {
  return {
    trainerName,
    nodeType: nodeType ?? -1,
    succeeded: false,
    failureReason: reason,
    modelName: nodeType === undefined ? "" : modelNameOf(trainerName, nodeType),
    ...target,
    components: [],
    maeWatts: 0,
    mapePercent: 0,
    trainRowCount: 0,
    testRowCount: 0,
    hasWeights: false,
    published: false,
  };
}
