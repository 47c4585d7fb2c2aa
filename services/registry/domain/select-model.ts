// Model selection with the reference model server's POST /model and GET /best-models semantics
// (server/model_server.py select_best_model and get_model, spec §7.2-7.3), bugs fixed: filters work,
// trainer names and node types match exactly, the node type is chosen once across every searched
// pipeline (choose-node-type.ts), a model trained for it beats one that is not whatever the feature group,
// the error compared is the held-out one, and the choice is explained (docs/deviations.md).
import { normalizeRequestedSource } from "../../domain/energy-sources.js";
import { InvalidInputError, FailedPreconditionError, NotFoundError } from "../../domain/errors.js";
import { FEATURE_GROUP_NAMES } from "../../domain/feature-groups.js";
import { OUTPUT_TYPE_NAMES, type OutputTypeName } from "../../models/index.js";
import type { NodeSpec, NodeTypeIndex } from "../../node-types/index.js";
import { chooseNodeType, type NodeTypeChoice, type NodeTypeMatchInfo, type SearchedPipeline } from "./choose-node-type.js";
import { coveredFeatureGroups, coveredModels } from "./covered-groups.js";
import { type ModelFilter, parseModelFilter, passesModelFilter } from "./model-filter.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import { describePipelines, noModelError } from "./no-model-error.js";
import type { StoredModel } from "./stored-model.js";

export type { NodeTypeMatchInfo } from "./choose-node-type.js";
export { describePipelines } from "./no-model-error.js";

/** A model request (POST /model's ModelRequest, typed). */
export interface SelectModelQuery {
  featureNames: readonly string[];
  /** Listed features the caller cannot measure; groups needing them are not valid. */
  unavailableFeatureNames?: readonly string[];
  outputType: OutputTypeName;
  energySource: string;
  /** undefined or -1: any node type; 0 with a machine spec: not declared (Kepler always sends 0). */
  nodeType?: number;
  weight?: boolean;
  trainerName?: string;
  filter?: string;
  pipelineName?: string;
  machineSpec?: NodeSpec;
  /** Fall back to other node types when none of the declared type exists (default true). */
  looseNodeType?: boolean;
}

/** Why a model won. */
export interface ModelSelection {
  featureGroup: string;
  validFeatureGroups: string[];
  nodeTypeMatch: NodeTypeMatchInfo;
  modelMatchesNodeType: boolean;
  /** The held-out MAE compared (metadata `held_out.mae`, else the reference's rounded `mae`). */
  maeWatts: number;
  candidateCount: number;
  reason: string;
}

interface GroupContext {
  index: NodeTypeIndex;
  /** The node type whose models count as matched in this pipeline; undefined: none does. */
  matchedNodeType: number | undefined;
  /** No node type was chosen: every model counts as matched. */
  anyNodeType: boolean;
  /** A declared node type to keep to (the reference's `_<node_type>` name filter). */
  declaredNodeType: number | undefined;
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

function isMatched(model: StoredModel, context: GroupContext): boolean {
  return context.anyNodeType || model.nodeType === context.matchedNodeType;
}

/**
 * select_best_model over one group's models, or "no-node-type" when loose matching is off and no model
 * of the declared node type exists.
 */
function pickInGroup(models: readonly StoredModel[], context: GroupContext): GroupPick | "no-node-type" | undefined {
  let names = context.trainerName === "" ? [...models] : models.filter((m) => m.trainerName === context.trainerName);
  if (context.declaredNodeType !== undefined) {
    const same = names.filter((m) => m.nodeType === context.declaredNodeType);
    if (same.length > 0) names = same;
    else if (!context.looseNodeType) return names.length > 0 ? "no-node-type" : undefined;
  }
  // Only weight-capable trainers write a weight.json (trainer registry), so its presence is the test.
  if (context.weight) names = names.filter((m) => m.weightJson !== undefined);
  let candidates = names.filter((m) => isMatched(m, context));
  if (names.length > 0 && candidates.length === 0) {
    // get_largest_candidates: the node types with the most cores, else everything.
    const largest = context.index.largestByCores([...new Set(names.map((m) => m.nodeType))]);
    candidates = largest.length > 0 ? names.filter((m) => largest.includes(m.nodeType)) : names;
  }
  const valid = candidates.filter((m) => m.maeWatts !== undefined && passesModelFilter(m.metadata, context.filter));
  let best: StoredModel | undefined;
  for (const model of valid) if (best === undefined || (model.maeWatts as number) < (best.maeWatts as number)) best = model;
  if (best === undefined) return undefined;
  return { model: best, matched: isMatched(best, context), candidateCount: valid.length };
}

/**
 * The pipelines a request searches: the one it names, else the one pinned for the source, else every
 * pipeline holding models of the source (so training another pipeline never hides a better model).
 */
export function pipelinesToSearch(store: ModelCatalogue, pipelineName: string | undefined, energySource: string): string[] {
  return pipelineName !== undefined && pipelineName !== "" ? [pipelineName] : store.pipelinesToSearch(energySource);
}

// Across pipelines and groups: a model of the matched node type first, then the lowest held-out MAE; on a
// tie the earlier candidate (pipelines are visited by name) stays.
function isBetter(pick: GroupPick, best: GroupPick | undefined): boolean {
  return (
    best === undefined ||
    (pick.matched && !best.matched) ||
    (pick.matched === best.matched && (pick.model.maeWatts as number) < (best.model.maeWatts as number))
  );
}

function searchedPipelines(
  store: ModelCatalogue,
  names: readonly string[],
  source: string,
  outputTypes: readonly OutputTypeName[],
): SearchedPipeline[] {
  return names.map((name) => {
    const index = store.pipeline(name)?.index;
    if (index === undefined) throw new NotFoundError(`pipeline "${name}"`);
    const modelNodeTypes = new Set(
      store
        .list()
        .filter(
          (m) =>
            m.location.pipelineName === name && m.location.energySource === source && outputTypes.includes(m.location.outputType),
        )
        .map((m) => m.nodeType),
    );
    return { name, index, modelNodeTypes };
  });
}

function contextFor(
  pipeline: SearchedPipeline,
  choice: NodeTypeChoice,
  options: { trainerName: string; weight: boolean; looseNodeType: boolean; filter: ModelFilter },
): GroupContext {
  const { match } = choice;
  const requested = match.kind === "requested";
  return {
    index: pipeline.index,
    matchedNodeType: choice.pipelineNames.includes(pipeline.name) && match.nodeType !== -1 ? match.nodeType : undefined,
    anyNodeType: match.kind === "none",
    declaredNodeType: requested ? match.nodeType : undefined,
    ...options,
  };
}

/** POST /model: the best model for the request, and why. */
export function selectModel(store: ModelCatalogue, query: SelectModelQuery): { model: StoredModel; selection: ModelSelection } {
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
  const pipelines = searchedPipelines(store, pipelineNames, source, [query.outputType]);
  const choice = chooseNodeType(pipelines, query.nodeType, query.machineSpec);
  const options = {
    trainerName: query.trainerName ?? "",
    weight: query.weight === true,
    looseNodeType: query.looseNodeType ?? true,
    filter,
  };
  let best: GroupPick | undefined;
  let candidateCount = 0;
  let nodeTypeMissing = false;
  for (const pipeline of pipelines) {
    const context = contextFor(pipeline, choice, options);
    for (const group of groups) {
      const pick = pickInGroup(coveredModels(store.group(pipeline.name, source, query.outputType, group), available), context);
      if (pick === "no-node-type") nodeTypeMissing = true;
      if (pick === undefined || pick === "no-node-type") continue;
      candidateCount += pick.candidateCount;
      if (isBetter(pick, best)) best = pick;
    }
  }
  if (best === undefined)
    throw noModelError(store, query, source, pipelineNames, available, nodeTypeMissing ? choice.match.nodeType : undefined);
  const mae = best.model.maeWatts as number;
  const match = choice.match;
  const nodeTypePart = best.matched
    ? `trained for ${match.reason}`
    : `no model fits ${match.reason}, so node type ${best.model.nodeType} of pipeline "${best.model.location.pipelineName}" was taken`;
  const selection: ModelSelection = {
    featureGroup: best.model.location.featureGroup,
    validFeatureGroups: groups,
    nodeTypeMatch: match,
    modelMatchesNodeType: best.matched,
    maeWatts: mae,
    candidateCount,
    reason: `${best.model.location.modelName} has the lowest held-out MAE (${mae} W) of ${candidateCount} candidate model${candidateCount === 1 ? "" : "s"} in ${groups.join(", ")} of ${describePipelines(pipelineNames)}; ${nodeTypePart}`,
  };
  return { model: best.model, selection };
}

/** One entry of GET /best-models. */
export interface BestModelEntry {
  outputType: OutputTypeName;
  featureGroup: string;
  model: StoredModel;
}

/** What GET /best-models may narrow the list by (the reference's parameters, plus a machine spec). */
export interface BestModelsQuery {
  energySource?: string;
  outputType?: OutputTypeName;
  featureGroup?: string;
  nodeType?: number;
  filter?: string;
  pipelineName?: string;
  machineSpec?: NodeSpec;
}

/**
 * GET /best-models: the lowest held-out MAE model per output type and feature group, over the same
 * pipelines as selectModel searches. A declared node type is strict (the reference's loose_node_type
 * false); a machine spec chooses the node type as selectModel does, and models of that node type win.
 */
export function listBestModels(store: ModelCatalogue, query: BestModelsQuery): BestModelEntry[] {
  const source = normalizeRequestedSource(query.energySource);
  const filter = parseModelFilter(query.filter ?? "");
  const outputTypes: readonly OutputTypeName[] = query.outputType !== undefined ? [query.outputType] : OUTPUT_TYPE_NAMES;
  const groups = query.featureGroup !== undefined && query.featureGroup !== "" ? [query.featureGroup] : [...FEATURE_GROUP_NAMES];
  const pipelines = searchedPipelines(store, pipelinesToSearch(store, query.pipelineName, source), source, outputTypes);
  const choice = chooseNodeType(pipelines, query.nodeType, query.machineSpec);
  const contexts = pipelines.map((pipeline) => ({
    pipelineName: pipeline.name,
    context: contextFor(pipeline, choice, { trainerName: "", weight: false, looseNodeType: false, filter }),
  }));
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
