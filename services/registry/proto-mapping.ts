// Translation between the registry's domain types and the generated protobuf messages.
import { componentsOf, type EnergySource } from "../domain/energy-sources.js";
import { InvalidInputError } from "../domain/errors.js";
import {
  type ModelMetadata,
  NodeTypeMatchKind,
  type ModelSelection as ProtoSelection,
  type ModelLocation as ProtoLocation,
  type PipelineInfo,
} from "../generated/kepler/model/v1/model.js";
import { ModelEventKind } from "../generated/kepler/model/v1/registry_service.js";
import type { MachineSpec } from "../generated/kepler/model/v1/types.js";
import {
  machineSpecFromProto as machineFromMessage,
  machineSpecToProto as machineToMessage,
} from "../kit/transport/machine-spec-codec.js";
import { outputTypeFromProto, outputTypeToProto } from "../kit/transport/output-type-codec.js";
import { calibrationOf, heldOutOf, type ModelLocation } from "../models/index.js";
import {
  machineSpecOfNode,
  type NodeSpec,
  type NodeTypeMatchKind as DomainMatchKind,
  nodeSpecOfMachine,
} from "../node-types/index.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";
import type { PipelineSummary } from "./domain/pipeline-state.js";
import type { ModelSelection, NodeTypeMatchInfo } from "./domain/select-model.js";
import type { StoredModel } from "./domain/stored-model.js";

export { outputTypeFromProto, outputTypeToProto };

export function locationToProto(location: ModelLocation): ProtoLocation {
  return { ...location, outputType: outputTypeToProto(location.outputType) };
}

/** A complete location from a request; every field is required. */
export function locationFromProto(location: ProtoLocation | undefined, field: string): ModelLocation {
  if (location === undefined) throw new InvalidInputError(field, "required");
  const outputType = outputTypeFromProto(location.outputType, `${field}.output_type`, true);
  for (const [name, value] of [
    ["pipeline_name", location.pipelineName],
    ["energy_source", location.energySource],
    ["feature_group", location.featureGroup],
    ["model_name", location.modelName],
  ] as const) {
    if (value === "") throw new InvalidInputError(`${field}.${name}`, "required");
  }
  return {
    pipelineName: location.pipelineName,
    energySource: location.energySource,
    outputType,
    featureGroup: location.featureGroup,
    modelName: location.modelName,
  };
}

/** A node spec from a request's MachineSpec; undefined when absent. Zero and empty fields are unknown. */
export function machineSpecFromProto(spec: MachineSpec | undefined): NodeSpec | undefined {
  return spec === undefined ? undefined : nodeSpecOfMachine(machineFromMessage(spec));
}

export function machineSpecToProto(spec: NodeSpec): MachineSpec {
  return machineToMessage(machineSpecOfNode(spec));
}

const MATCH_KINDS: Record<DomainMatchKind, NodeTypeMatchKind> = {
  requested: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_REQUESTED,
  exact: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_EXACT,
  cover: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_COVER,
  similarity: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_SIMILARITY,
  none: NodeTypeMatchKind.NODE_TYPE_MATCH_KIND_NONE,
};

export function nodeTypeMatchToProto(match: Omit<NodeTypeMatchInfo, "similarity" | "reason"> & Partial<NodeTypeMatchInfo>) {
  return {
    similarity: match.similarity ?? -1,
    reason: match.reason ?? "",
    nodeType: match.nodeType,
    uncertainty: match.uncertainty,
    looseness: match.looseness,
    kind: MATCH_KINDS[match.kind],
    pipelineName: match.pipelineName,
    nodeTypeSpec: match.nodeTypeSpec === undefined ? undefined : machineSpecToProto(match.nodeTypeSpec),
  };
}

export function selectionToProto(selection: ModelSelection): ProtoSelection {
  return { ...selection, nodeTypeMatch: nodeTypeMatchToProto(selection.nodeTypeMatch) };
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** A stored model's metadata message (metadata.json decoded, plus location, trainer and weights). */
export function metadataToProto(model: StoredModel, store: ModelCatalogue): ModelMetadata {
  const m = model.metadata;
  const components = componentsOf(model.location.energySource as EnergySource).filter((c) => `${c}_mae` in m || `${c}_mape` in m);
  const machineSpec = store.machineSpecOf(model);
  const heldOut = heldOutOf(m);
  return {
    location: locationToProto(model.location),
    modelName: model.location.modelName,
    modelClass: typeof m.model_class === "string" ? m.model_class : "",
    modelFile: typeof m.model_file === "string" ? m.model_file : "",
    features: model.features,
    feFiles: Array.isArray(m.fe_files) ? m.fe_files.map(String) : [],
    outputType: outputTypeToProto(model.location.outputType),
    maeWatts: numberOr(m.mae, model.maeWatts ?? 0),
    mapePercent: numberOr(m.mape, 0),
    componentMetrics: components.map((component) => ({
      component,
      maeWatts: numberOr(m[`${component}_mae`], 0),
      mapePercent: numberOr(m[`${component}_mape`], -1),
    })),
    nodeType: model.nodeType,
    machineSpec: machineSpec === undefined ? undefined : machineSpecToProto(machineSpec),
    trainerName: model.trainerName,
    hasWeights: model.weightJson !== undefined,
    metadataJson: model.metadataText,
    publishedTimeSeconds: model.publishedTimeSeconds,
    heldOutMaeWatts: heldOut?.maeWatts,
    heldOutRowCount: heldOut?.rowCount ?? 0,
    hasCalibration: calibrationOf(m) !== undefined,
  };
}

export function pipelineToProto(pipeline: PipelineSummary): PipelineInfo {
  return {
    pipelineName: pipeline.name,
    metadataJson: pipeline.metadataText ?? "",
    energySources: pipeline.energySources,
    modelCount: pipeline.modelCount,
    nodeTypeCount: pipeline.index.size,
  };
}

/** Catalogue event kinds as WatchModels sends them. */
export const EVENT_KINDS = {
  published: ModelEventKind.MODEL_EVENT_KIND_PUBLISHED,
  imported: ModelEventKind.MODEL_EVENT_KIND_IMPORTED,
  removed: ModelEventKind.MODEL_EVENT_KIND_REMOVED,
} as const;
