// Model selection with the reference model server's POST /model and GET /best-models semantics
// (server/model_server.py select_best_model and get_model, spec §7.2-7.3), bugs fixed: filters work,
// trainer names and node types match exactly, a model trained for the matched node type beats one
// that is not whatever the feature group, and the choice is explained (docs/deviations.md).
import { normalizeRequestedSource } from "../../domain/energy-sources.js";
import { FailedPreconditionError, InvalidInputError, NotFoundError } from "../../domain/errors.js";
import { listText } from "../../domain/list-text.js";
import { FEATURE_GROUP_NAMES } from "../../domain/feature-groups.js";
import type { OutputTypeName } from "../../models/index.js";
import { coveredFeatureGroups, coveredModels } from "./covered-groups.js";
import {
  isEmptySpec,
  NO_NODE_TYPE_MATCH,
  type NodeSpec,
  type NodeTypeIndex,
  type NodeTypeMatchResult,
  specCovers,
} from "../../node-types/index.js";
import { type ModelFilter, parseModelFilter, passesModelFilter } from "./model-filter.js";
import type { ModelStore } from "./model-store.js";
import type { StoredModel } from "./stored-model.js";

/** A model request (POST /model's ModelRequest, typed). */
export interface SelectModelQuery {
  featureNames: readonly string[];
  /** Listed features the caller cannot measure; groups needing them are not valid. */
  unavailableFeatureNames?: readonly string[];
  outputType: OutputTypeName;
  energySource: string;
  /** undefined or -1: any node type (then machineSpec, if given, is matched). */
  nodeType?: number;
  weight?: boolean;
  trainerName?: string;
  filter?: string;
  pipelineName?: string;
  machineSpec?: NodeSpec;
  /** Fall back to other node types when none of the matched type exists (default true). */
  looseNodeType?: boolean;
}

/** How the request's node type was matched, in which pipeline. */
export interface NodeTypeMatchInfo extends NodeTypeMatchResult {
  pipelineName: string;
  nodeTypeSpec?: NodeSpec;
}

/** Why a model won. */
export interface ModelSelection {
  featureGroup: string;
  validFeatureGroups: string[];
  nodeTypeMatch: NodeTypeMatchInfo;
  modelMatchesNodeType: boolean;
  maeWatts: number;
  candidateCount: number;
  reason: string;
}

interface GroupContext {
  index: NodeTypeIndex;
  nodeType: number;
  spec?: NodeSpec;
  trainerName: string;
  weight: boolean;
  looseNodeType: boolean;
  filter: ModelFilter;
}

interface GroupPick {
  model: StoredModel;
  matched: boolean;
  candidateCount: number;
}

// The reference's is_matched_type: trained for the node type, or (any node type asked) covering the spec.
function isMatchedType(model: StoredModel, context: GroupContext): boolean {
  if (model.nodeType === context.nodeType) return true;
  if (context.nodeType !== -1) return false;
  if (context.spec === undefined || isEmptySpec(context.spec) || context.index.size === 0) return true;
  const entry = context.index.get(model.nodeType);
  return entry !== undefined && specCovers(entry.spec, context.spec);
}

/**
 * select_best_model over one group's models, or "no-node-type" when loose matching is off and no model
 * of the node type exists.
 */
function pickInGroup(models: readonly StoredModel[], context: GroupContext): GroupPick | "no-node-type" | undefined {
  let names = context.trainerName === "" ? [...models] : models.filter((m) => m.trainerName === context.trainerName);
  if (context.nodeType !== -1) {
    const same = names.filter((m) => m.nodeType === context.nodeType);
    if (same.length > 0) names = same;
    else if (!context.looseNodeType) return names.length > 0 ? "no-node-type" : undefined;
  }
  // Only weight-capable trainers write a weight.json (trainer registry), so its presence is the test.
  if (context.weight) names = names.filter((m) => m.weightJson !== undefined);
  let candidates = names.filter((m) => isMatchedType(m, context));
  if (names.length > 0 && candidates.length === 0) {
    // get_largest_candidates: the node types with the most cores, else everything.
    const largest = context.index.largestByCores([...new Set(names.map((m) => m.nodeType))]);
    candidates = largest.length > 0 ? names.filter((m) => largest.includes(m.nodeType)) : names;
  }
  const valid = candidates.filter((m) => m.maeWatts !== undefined && passesModelFilter(m.metadata, context.filter));
  let best: StoredModel | undefined;
  for (const model of valid) if (best === undefined || (model.maeWatts as number) < (best.maeWatts as number)) best = model;
  if (best === undefined) return undefined;
  return { model: best, matched: isMatchedType(best, context), candidateCount: valid.length };
}

/**
 * The pipelines a request searches: the one it names, else the one pinned for the source, else every
 * pipeline holding models of the source (so training another pipeline never hides a better model).
 */
export function pipelinesToSearch(store: ModelStore, pipelineName: string | undefined, energySource: string): string[] {
  return pipelineName !== undefined && pipelineName !== "" ? [pipelineName] : store.pipelinesToSearch(energySource);
}

/** `pipeline "a"` or `pipelines "a", "b"`, for messages. */
export function describePipelines(names: readonly string[]): string {
  return `pipeline${names.length === 1 ? "" : "s"} ${names.map((n) => `"${n}"`).join(", ")}`;
}

// Across pipelines and groups: a model of the matched node type first, then the lowest MAE; on a tie
// the earlier candidate (pipelines are visited by name) stays.
function isBetter(pick: GroupPick, best: GroupPick | undefined): boolean {
  return (
    best === undefined ||
    (pick.matched && !best.matched) ||
    (pick.matched === best.matched && (pick.model.maeWatts as number) < (best.model.maeWatts as number))
  );
}

/** Matches the request's node type or machine spec against the pipeline's index. */
export function matchNodeType(
  index: NodeTypeIndex,
  pipelineName: string,
  nodeType: number | undefined,
  spec: NodeSpec | undefined,
): NodeTypeMatchInfo {
  let result: NodeTypeMatchResult = NO_NODE_TYPE_MATCH;
  if (nodeType !== undefined && nodeType !== -1) result = { nodeType, uncertainty: 0, looseness: 0, kind: "requested" };
  else if (spec !== undefined && !isEmptySpec(spec) && index.size > 0) result = index.match(spec, true);
  const info: NodeTypeMatchInfo = { ...result, pipelineName };
  const entry = result.nodeType === -1 ? undefined : index.get(result.nodeType);
  if (entry !== undefined) info.nodeTypeSpec = entry.spec;
  return info;
}

function describeMatch(match: NodeTypeMatchInfo): string {
  switch (match.kind) {
    case "requested":
      return `node type ${match.nodeType} as requested`;
    case "exact":
      return `node type ${match.nodeType} covering the machine spec exactly`;
    case "cover":
      return `node type ${match.nodeType} covering the partial machine spec (uncertainty ${match.uncertainty.toFixed(3)})`;
    case "similarity":
      return `node type ${match.nodeType}, the most similar to the machine spec (looseness ${match.looseness.toFixed(3)})`;
    default:
      return "any node type";
  }
}

function list(items: readonly string[]): string {
  return listText(items);
}

// Explains a failed selection: which features the closest model needs, or which condition excluded the rest.
function noModelError(
  store: ModelStore,
  query: SelectModelQuery,
  source: string,
  pipelineNames: readonly string[],
  available: readonly string[],
  nodeTypeMissing: boolean,
  nodeType: number,
): Error {
  const all = store
    .list()
    .filter(
      (m) =>
        pipelineNames.includes(m.location.pipelineName) &&
        m.location.energySource === source &&
        m.location.outputType === query.outputType,
    );
  const where = describePipelines(pipelineNames);
  const what = `${query.outputType} model for ${source} in ${where}`;
  if (all.length === 0) return new FailedPreconditionError(`no ${what}: publish or import one first`);
  const have = new Set(available);
  const missingOf = (m: StoredModel) => m.features.filter((f) => !have.has(f));
  const covering = all.filter((m) => missingOf(m).length === 0);
  if (covering.length === 0) {
    const closest = [...all].sort(
      (a, b) => missingOf(a).length - missingOf(b).length || (a.maeWatts ?? Infinity) - (b.maeWatts ?? Infinity),
    )[0] as StoredModel;
    return new FailedPreconditionError(
      `no ${what} covers the given features ${list(query.featureNames)}${(query.unavailableFeatureNames ?? []).length > 0 ? ` (unavailable: ${list(query.unavailableFeatureNames ?? [])})` : ""}; the closest, ${closest.location.modelName} (${closest.location.featureGroup}), needs ${list(closest.features)} (missing ${list(missingOf(closest))})`,
    );
  }
  if (nodeTypeMissing) return new NotFoundError(`${what} trained for node type ${nodeType} (loose_node_type is false)`);
  const conditions: string[] = [];
  if ((query.trainerName ?? "") !== "") conditions.push(`trainer_name "${query.trainerName}"`);
  if ((query.filter ?? "") !== "") conditions.push(`filter "${query.filter}"`);
  if (query.weight === true) conditions.push("weight (weight-capable trainers with a weight.json only)");
  return new FailedPreconditionError(
    `${covering.length} ${query.outputType} models for ${source} in ${where} cover the given features, but none passes ${conditions.length > 0 ? conditions.join(" and ") : "the selection (no model has a mae)"}`,
  );
}

/** POST /model: the best model for the request, and why. */
export function selectModel(store: ModelStore, query: SelectModelQuery): { model: StoredModel; selection: ModelSelection } {
  if (query.featureNames.length === 0) throw new InvalidInputError("feature_names", "list the features the caller can provide");
  const source = normalizeRequestedSource(query.energySource);
  const filter = parseModelFilter(query.filter ?? "");
  const pipelineNames = pipelinesToSearch(store, query.pipelineName, source);
  if (pipelineNames.length === 0)
    throw new FailedPreconditionError(`no pipeline holds models for ${source}: publish or import one first`);
  const unavailable = new Set(query.unavailableFeatureNames ?? []);
  const available = query.featureNames.filter((f) => !unavailable.has(f));
  const groups = [
    ...new Set(
      pipelineNames.flatMap((pipelineName) =>
        coveredFeatureGroups(store, { pipelineName, energySource: source, outputType: query.outputType }, available),
      ),
    ),
  ];
  let best: GroupPick | undefined;
  let match: NodeTypeMatchInfo | undefined;
  let candidateCount = 0;
  let nodeTypeMissing = false;
  let requestedNodeType = query.nodeType ?? -1;
  // Node types are numbered per pipeline, so each pipeline matches the request against its own index.
  for (const pipelineName of pipelineNames) {
    const index = store.pipeline(pipelineName)?.index;
    if (index === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
    const pipelineMatch = matchNodeType(index, pipelineName, query.nodeType, query.machineSpec);
    const context: GroupContext = {
      index,
      nodeType: pipelineMatch.nodeType,
      spec: query.machineSpec,
      trainerName: query.trainerName ?? "",
      weight: query.weight === true,
      looseNodeType: query.looseNodeType ?? true,
      filter,
    };
    for (const group of groups) {
      const pick = pickInGroup(coveredModels(store.group(pipelineName, source, query.outputType, group), available), context);
      if (pick === "no-node-type") {
        nodeTypeMissing = true;
        requestedNodeType = pipelineMatch.nodeType;
      }
      if (pick === undefined || pick === "no-node-type") continue;
      candidateCount += pick.candidateCount;
      if (isBetter(pick, best)) {
        best = pick;
        match = pipelineMatch;
      }
    }
  }
  if (best === undefined || match === undefined)
    throw noModelError(store, query, source, pipelineNames, available, nodeTypeMissing, requestedNodeType);
  const mae = best.model.maeWatts as number;
  const nodeTypePart = best.matched
    ? `trained for ${describeMatch(match)}`
    : `no model fits ${describeMatch(match)}, so node type ${best.model.nodeType} was taken`;
  const selection: ModelSelection = {
    featureGroup: best.model.location.featureGroup,
    validFeatureGroups: groups,
    nodeTypeMatch: match,
    modelMatchesNodeType: best.matched,
    maeWatts: mae,
    candidateCount,
    reason: `${best.model.location.modelName} has the lowest MAE (${mae} W) of ${candidateCount} candidate model${candidateCount === 1 ? "" : "s"} in ${groups.join(", ")} of ${describePipelines(pipelineNames)}; ${nodeTypePart}`,
  };
  return { model: best.model, selection };
}

/** One entry of GET /best-models. */
export interface BestModelEntry {
  outputType: OutputTypeName;
  featureGroup: string;
  model: StoredModel;
}

/**
 * GET /best-models: the lowest-MAE model per output type and feature group (no spec, strict node
 * type), over the same pipelines as selectModel searches.
 */
export function listBestModels(
  store: ModelStore,
  query: {
    energySource?: string;
    outputType?: OutputTypeName;
    featureGroup?: string;
    nodeType?: number;
    filter?: string;
    pipelineName?: string;
  },
): BestModelEntry[] {
  const source = normalizeRequestedSource(query.energySource);
  const filter = parseModelFilter(query.filter ?? "");
  const outputTypes: OutputTypeName[] = query.outputType !== undefined ? [query.outputType] : ["AbsPower", "DynPower"];
  const groups = query.featureGroup !== undefined && query.featureGroup !== "" ? [query.featureGroup] : [...FEATURE_GROUP_NAMES];
  const contexts = pipelinesToSearch(store, query.pipelineName, source).map((pipelineName) => {
    const index = store.pipeline(pipelineName)?.index;
    if (index === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
    const context: GroupContext = {
      index,
      nodeType: query.nodeType ?? -1,
      trainerName: "",
      weight: false,
      looseNodeType: false,
      filter,
    };
    return { pipelineName, context };
  });
  const entries: BestModelEntry[] = [];
  for (const outputType of outputTypes) {
    for (const featureGroup of groups) {
      let best: GroupPick | undefined;
      for (const { pipelineName, context } of contexts) {
        const pick = pickInGroup(store.group(pipelineName, source, outputType, featureGroup), context);
        if (pick !== undefined && pick !== "no-node-type" && isBetter(pick, best)) best = pick;
      }
      if (best !== undefined) entries.push({ outputType, featureGroup, model: best.model });
    }
  }
  return entries;
}
