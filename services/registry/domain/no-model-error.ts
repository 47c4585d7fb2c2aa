// The error of a selection that found nothing: which features the closest model needs, or which condition
// (trainer name, filter, weight, strict node type) excluded the models that cover the request's features.
import { FailedPreconditionError, NotFoundError } from "../../domain/errors.js";
import { listText } from "../../domain/list-text.js";
import type { OutputTypeName } from "../../models/index.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import type { StoredModel } from "./stored-model.js";

/** `pipeline "a"` or `pipelines "a", "b"`, for messages. */
export function describePipelines(names: readonly string[]): string {
  return `pipeline${names.length === 1 ? "" : "s"} ${names.map((n) => `"${n}"`).join(", ")}`;
}

/** What a failed selection asked for. */
export interface FailedSelection {
  featureNames: readonly string[];
  unavailableFeatureNames?: readonly string[];
  outputType: OutputTypeName;
  trainerName?: string;
  filter?: string;
  weight?: boolean;
}

/** Explains why no model was selected (see the file comment). */
export function noModelError(
  store: ModelCatalogue,
  query: FailedSelection,
  source: string,
  pipelineNames: readonly string[],
  available: readonly string[],
  missingNodeType: number | undefined,
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
    const unavailable = query.unavailableFeatureNames ?? [];
    return new FailedPreconditionError(
      `no ${what} covers the given features ${listText(query.featureNames)}${unavailable.length > 0 ? ` (unavailable: ${listText(unavailable)})` : ""}; the closest, ${closest.location.modelName} (${closest.location.featureGroup}), needs ${listText(closest.features)} (missing ${listText(missingOf(closest))})`,
    );
  }
  if (missingNodeType !== undefined)
    return new NotFoundError(`${what} trained for node type ${missingNodeType} (loose_node_type is false)`);
  const conditions: string[] = [];
  if ((query.trainerName ?? "") !== "") conditions.push(`trainer_name "${query.trainerName}"`);
  if ((query.filter ?? "") !== "") conditions.push(`filter "${query.filter}"`);
  if (query.weight === true) conditions.push("weight (weight-capable trainers with a weight.json only)");
  return new FailedPreconditionError(
    `${covering.length} ${query.outputType} models for ${source} in ${where} cover the given features, but none passes ${conditions.length > 0 ? conditions.join(" and ") : "the selection (no model has a mae)"}`,
  );
}
