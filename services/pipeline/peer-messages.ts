// Translation between the pipeline domain's types and the messages of its peers (and of its own RPCs,
// which reuse TrainerResult, MachineSpec, PrometheusWindow and IsolatorKind).
import { assertEnergySource, type EnergySource } from "../domain/energy-sources.js";
import { type TrainerResult, TrainOutcome } from "../generated/kepler/model/v1/trainer_service.js";
import { IsolatorKind, type PrometheusWindow } from "../generated/kepler/model/v1/types.js";
import { outputTypeFromProto, outputTypeToProto } from "../kit/transport/output-type-codec.js";
import type { IsolatorName, PipelineTrainerResult, PrometheusWindowSpec } from "./domain/pipeline-peers.js";

const ISOLATOR_KINDS: Record<IsolatorName, IsolatorKind> = {
  none: IsolatorKind.ISOLATOR_KIND_NONE,
  min: IsolatorKind.ISOLATOR_KIND_MIN,
  profile: IsolatorKind.ISOLATOR_KIND_PROFILE,
  trainer: IsolatorKind.ISOLATOR_KIND_TRAINER,
};

export function isolatorKindOf(name: IsolatorName): IsolatorKind {
  return ISOLATOR_KINDS[name];
}

/** The isolator name of a kind; `fallback` for unspecified or unknown kinds. */
export function isolatorNameOf(kind: IsolatorKind, fallback: IsolatorName): IsolatorName {
  const found = (Object.entries(ISOLATOR_KINDS) as [IsolatorName, IsolatorKind][]).find(([, value]) => value === kind);
  return found?.[0] ?? fallback;
}

export function windowMessage(window: PrometheusWindowSpec): PrometheusWindow {
  return { ...window, thirdPartyMetricNames: [...window.thirdPartyMetricNames] };
}

export function windowOf(message: PrometheusWindow): PrometheusWindowSpec {
  return { ...message };
}

/** A trainer's result message -> the domain result. */
export function trainerResultOf(message: TrainerResult, requestedSource: EnergySource): PipelineTrainerResult {
  let energySource = requestedSource;
  try {
    energySource = assertEnergySource(message.energySource);
  } catch {
    // keep the requested source
  }
  return {
    trainerName: message.trainerName,
    nodeType: message.nodeType,
    succeeded: message.outcome === TrainOutcome.TRAIN_OUTCOME_SUCCEEDED,
    failureReason: message.failureReason,
    modelName: message.modelName,
    energySource,
    outputType: outputTypeFromProto(message.outputType) ?? "AbsPower",
    featureGroup: message.featureGroup,
    components: message.componentMetrics.map((c) => ({ ...c })),
    maeWatts: message.maeWatts,
    mapePercent: message.mapePercent,
    trainRowCount: message.trainRowCount,
    testRowCount: message.testRowCount,
    hasWeights: message.hasWeights,
    published: message.publishedLocation !== undefined,
  };
}

/** The domain result -> the TrainerResult message RunPipeline streams. */
export function trainerResultMessage(result: PipelineTrainerResult, pipelineName: string): TrainerResult {
  return {
    trainerName: result.trainerName,
    nodeType: result.nodeType,
    outcome: result.succeeded ? TrainOutcome.TRAIN_OUTCOME_SUCCEEDED : TrainOutcome.TRAIN_OUTCOME_FAILED,
    failureReason: result.failureReason,
    modelName: result.modelName,
    energySource: result.energySource,
    outputType: outputTypeToProto(result.outputType),
    featureGroup: result.featureGroup,
    componentMetrics: result.components.map((c) => ({ ...c })),
    maeWatts: result.maeWatts,
    mapePercent: result.mapePercent,
    trainRowCount: result.trainRowCount,
    testRowCount: result.testRowCount,
    hasWeights: result.hasWeights,
    publishedLocation: result.published
      ? {
          pipelineName,
          energySource: result.energySource,
          outputType: outputTypeToProto(result.outputType),
          featureGroup: result.featureGroup,
          modelName: result.modelName,
        }
      : undefined,
  };
}
