// Translation between the PipelineService messages and the pipeline domain's types.
import { InvalidInputError } from "../domain/errors.js";
import { NodeTypeMatchKind } from "../generated/kepler/model/v1/model.js";
import type {
  OnlinePipelineStatus as OnlinePipelineStatusMessage,
  RunPipelineOptions,
  RunPipelineResponse,
} from "../generated/kepler/model/v1/pipeline_service.js";
import { ExtractorKind, IsolatorKind, type ProgressEvent } from "../generated/kepler/model/v1/types.js";
import type { OnlinePipelineStatus } from "./domain/online-pipelines.js";
import type { PipelineData, PipelineRunOptions } from "./domain/pipeline-options.js";
import type { ExtractorName, IsolatorName, PipelineProgress, PipelineTrainerResult } from "./domain/pipeline-peers.js";
import type { PipelineRunSummary } from "./domain/run-pipeline.js";
import { machineSpecFromProto, machineSpecToProto } from "../kit/transport/machine-spec-codec.js";
import { trainerResultMessage, windowOf } from "./peer-messages.js";

function extractorName(kind: ExtractorKind, field: string): ExtractorName {
  if (kind === ExtractorKind.EXTRACTOR_KIND_UNSPECIFIED || kind === ExtractorKind.EXTRACTOR_KIND_DEFAULT) return "default";
  if (kind === ExtractorKind.EXTRACTOR_KIND_SMOOTH) return "smooth";
  throw new InvalidInputError(field, `unknown extractor kind ${kind}`);
}

function isolatorName(kind: IsolatorKind, field: string): IsolatorName {
  switch (kind) {
    case IsolatorKind.ISOLATOR_KIND_MIN:
      return "min";
    case IsolatorKind.ISOLATOR_KIND_NONE:
      return "none";
    // The reference's documented default (seed 000): profile where one exists for the node type, else min.
    case IsolatorKind.ISOLATOR_KIND_UNSPECIFIED:
    case IsolatorKind.ISOLATOR_KIND_PROFILE:
      return "profile";
    case IsolatorKind.ISOLATOR_KIND_TRAINER:
      return "trainer";
    default:
      throw new InvalidInputError(field, `unknown isolator kind ${kind}`);
  }
}

/** RunPipelineOptions + where the data comes from -> the domain options. */
export function decodeRunOptions(
  options: RunPipelineOptions,
  data: PipelineData,
  idleData: PipelineData | undefined,
  field: string,
): PipelineRunOptions {
  const windowMetrics = options.window?.thirdPartyMetricNames ?? [];
  return {
    pipelineName: options.pipelineName,
    energySources: options.energySources,
    featureGroups: options.featureGroups,
    extractor: extractorName(options.extractor, `${field}.extractor`),
    isolator: isolatorName(options.isolator, `${field}.isolator`),
    targetHints: options.targetHints,
    backgroundHints: options.backgroundHints,
    absPipelineName: options.absPipelineName,
    absTrainerNames: options.absTrainerNames,
    dynTrainerNames: options.dynTrainerNames,
    data,
    idleData,
    machine:
      options.machineSpec === undefined
        ? undefined
        : { spec: machineSpecFromProto(options.machineSpec), machineId: options.machineId },
    nodeType: options.machineSpec === undefined ? options.nodeType : undefined,
    seed: options.seed ?? 0,
    useVmMetrics: options.useVmMetrics,
    thirdPartyMetricNames: [...new Set([...options.thirdPartyMetricNames, ...windowMetrics])],
  };
}

/** Where the workload data comes from: the options' window, or the inline chunks. */
export function decodeData(options: RunPipelineOptions, inline: Uint8Array | undefined, field: string): PipelineData {
  if (options.window !== undefined) {
    if (inline !== undefined)
      throw new InvalidInputError(`${field}.window`, "the options name a live window: send no response_chunk messages");
    return { kind: "window", window: windowOf(options.window) };
  }
  if (inline === undefined)
    throw new InvalidInputError(
      `${field}.window`,
      "no data: name a live window or send the Prometheus response as response_chunk messages",
    );
  return { kind: "inline", response: inline };
}

/** Where the idle data comes from, if anywhere. */
export function decodeIdleData(
  options: RunPipelineOptions,
  inline: Uint8Array | undefined,
  field: string,
): PipelineData | undefined {
  if (options.idleWindow !== undefined) {
    if (inline !== undefined)
      throw new InvalidInputError(
        `${field}.idle_window`,
        "the options name an idle window: send no idle_response_chunk messages",
      );
    return { kind: "window", window: windowOf(options.idleWindow) };
  }
  return inline === undefined ? undefined : { kind: "inline", response: inline };
}

export function progressMessage(event: PipelineProgress): RunPipelineResponse {
  const value: ProgressEvent = { ...event };
  return { content: { $case: "progress", value } };
}

export function resultMessage(result: PipelineTrainerResult, pipelineName: string): RunPipelineResponse {
  return { content: { $case: "result", value: trainerResultMessage(result, pipelineName) } };
}

// Why the run's rows got their node type, in the registry's one-sentence style.
function nodeTypeReason(nodeType: PipelineRunSummary["nodeType"], pipelineName: string): string {
  if (nodeType.kind === "indexed")
    return `node type ${nodeType.nodeType} of pipeline ${pipelineName}: the run's machine spec, ${nodeType.created === true ? "indexed as a new node type" : "already indexed"}`;
  if (nodeType.kind === "requested") return `node type ${nodeType.nodeType} as requested`;
  return "no node type: the rows keep the data's node_type column";
}

export function summaryMessage(summary: PipelineRunSummary): RunPipelineResponse {
  const { nodeType } = summary;
  const matched = nodeType.kind !== "data";
  return {
    content: {
      $case: "summary",
      value: {
        pipelineName: summary.pipelineName,
        metadataJson: summary.metadataJson,
        succeededCount: summary.succeededCount,
        failedCount: summary.failedCount,
        nodeTypeMatch: {
          nodeType: nodeType.nodeType,
          uncertainty: matched ? 0 : -1,
          looseness: matched ? 0 : -1,
          kind:
            nodeType.kind === "indexed"
              ? NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_EXACT
              : nodeType.kind === "requested"
                ? NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_REQUESTED
                : NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_NONE,
          pipelineName: summary.pipelineName,
          nodeTypeSpec: nodeType.spec === undefined ? undefined : machineSpecToProto(nodeType.spec),
          // An indexed spec is its node type's own spec; nothing was compared otherwise.
          similarity: nodeType.kind === "indexed" ? 1 : -1,
          reason: nodeTypeReason(nodeType, summary.pipelineName),
        },
        notices: [...summary.notices],
      },
    },
  };
}

export function onlineStatusMessage(status: OnlinePipelineStatus): OnlinePipelineStatusMessage {
  return { ...status };
}
