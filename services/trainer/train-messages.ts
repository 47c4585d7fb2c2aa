// Translation between the Train RPC's messages and the trainer domain's types.
import type { DataTable } from "../domain/data-table.js";
import type {
  TrainerResult as TrainerResultMessage,
  TrainOptions,
  TrainResponse,
} from "../generated/kepler/model/v1/trainer_service.js";
import { TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import { outputTypeFromProto, outputTypeToProto } from "../kit/transport/output-type-codec.js";
import type { MetadataMachineSpec } from "../models/index.js";
import type { TrainerResult, TrainModelsRequest, TrainModelsResult, TrainProgress } from "./domain/train-models.js";

/** TrainOptions + the collected table -> the domain request. */
export function toTrainModelsRequest(options: TrainOptions, table: DataTable): TrainModelsRequest {
  const spec = options.machineSpec;
  const machineSpec: MetadataMachineSpec | undefined =
    spec === undefined
      ? undefined
      : { processor: spec.processor, cores: spec.cores, chips: spec.chips, memory: spec.memoryGib, frequency: spec.frequencyMhz };
  return {
    table,
    energySource: options.energySource,
    featureGroup: options.featureGroup,
    featureNames: options.featureNames,
    outputType: outputTypeFromProto(options.outputType, "options.output_type", true),
    trainerNames: options.trainerNames,
    nodeType: options.nodeType,
    seed: options.seed,
    testTimestampsSeconds: options.testTimestampsSeconds,
    pipelineName: options.pipelineName,
    machineSpec,
    continueFromCheckpoint: options.continueFromCheckpoint,
    skipPublish: options.skipPublish,
  };
}

/** A progress event message. */
export function progressMessage(event: TrainProgress): TrainResponse {
  return { content: { $case: "progress", value: { ...event } } };
}

/** A result message (NaN metrics of a failed trainer are sent as 0). */
export function resultMessage(result: TrainerResult, request: TrainModelsRequest, energySource: string): TrainResponse {
  const finite = (v: number) => (Number.isFinite(v) ? v : 0);
  const location = result.publishedLocation;
  const value: TrainerResultMessage = {
    trainerName: result.trainerName,
    nodeType: result.nodeType,
    outcome: result.outcome === "succeeded" ? TrainOutcome.TRAIN_OUTCOME_SUCCEEDED : TrainOutcome.TRAIN_OUTCOME_FAILED,
    failureReason: result.failureReason ?? "",
    modelName: result.modelName,
    energySource,
    outputType: outputTypeToProto(request.outputType),
    featureGroup: request.featureGroup,
    componentMetrics: result.components.map((c) => ({
      component: c.component,
      maeWatts: c.maeWatts,
      mapePercent: c.mapePercent,
    })),
    maeWatts: finite(result.maeWatts),
    mapePercent: finite(result.mapePercent),
    trainRowCount: result.trainRowCount,
    testRowCount: result.testRowCount,
    hasWeights: result.hasWeights,
    publishedLocation:
      location === undefined
        ? undefined
        : {
            pipelineName: location.pipelineName,
            energySource: location.energySource,
            outputType: outputTypeToProto(location.outputType),
            featureGroup: location.featureGroup,
            modelName: location.modelName,
          },
  };
  return { content: { $case: "result", value } };
}

/** The closing summary message. */
export function summaryMessage(result: TrainModelsResult): TrainResponse {
  const succeeded = result.results.filter((r) => r.outcome === "succeeded").length;
  return {
    content: {
      $case: "summary",
      value: {
        succeededCount: succeeded,
        failedCount: result.results.length - succeeded,
        nodeTypes: result.nodeTypes,
        rowCount: result.rowCount,
      },
    },
  };
}
