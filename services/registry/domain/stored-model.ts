// One model as the registry holds it: where it is, its metadata.json, its weights, and whether this
// server can run it. The zip is the source of truth (it is replaced atomically); the unpacked folder
// beside it is for readers of the kepler-model-db layout.
import { InvalidInputError } from "../../domain/errors.js";
import { featureGroupOf } from "../../domain/feature-groups.js";
import {
  componentWeightsText,
  heldOutOf,
  METADATA_FILE,
  type ModelLocation,
  parseWeightJson,
  WEIGHT_FILE,
  type ZipEntry,
} from "../../models/index.js";
import { parseModelName } from "./model-name.js";

/** How a servable model is run: our JSON component files, or Kepler's weight.json alone. */
export type ModelFormat = "components" | "weights";

/** A stored model. */
export interface StoredModel {
  location: ModelLocation;
  trainerName: string;
  nodeType: number;
  /** metadata.json, parsed. */
  metadata: Record<string, unknown>;
  /** metadata.json, verbatim. */
  metadataText: string;
  features: string[];
  /**
   * The held-out error selection compares: metadata `held_out.mae` (unrounded), else `mae`; undefined when
   * both are missing (such models are never selected, as in the reference).
   */
  maeWatts: number | undefined;
  /** weight.json text, when the model has weights in Kepler's shape: the component map only (no model_name). */
  weightJson?: string;
  format: ModelFormat;
  zipSizeBytes: number;
  /** When the zip was written (its mtime), Unix seconds. */
  publishedTimeSeconds: number;
}

/** Why a model cannot be served. */
export class UnservableModelError extends Error {
  override readonly name = "UnservableModelError";
}

const decoder = new TextDecoder();

function findEntry(entries: readonly ZipEntry[], name: string): ZipEntry | undefined {
  return entries.find((entry) => entry.name === name);
}

// Our archives (services/models) carry format_version and JSON files for the dict, the scaler and
// every component; the reference's carry pickles (`.pkl`) or XGBoost JSON without format_version.
function hasComponentFiles(metadata: Record<string, unknown>, entries: readonly ZipEntry[]): boolean {
  if (typeof metadata.format_version !== "number" || typeof metadata.model_file !== "string") return false;
  const dictEntry = findEntry(entries, metadata.model_file);
  if (dictEntry === undefined) return false;
  let dict: unknown;
  try {
    dict = JSON.parse(decoder.decode(dictEntry.data));
  } catch {
    return false;
  }
  if (typeof dict !== "object" || dict === null) return false;
  return Object.values(dict as Record<string, { model_file?: unknown; fe_files?: unknown }>).every(
    (component) =>
      typeof component.model_file === "string" &&
      component.model_file.endsWith(".json") &&
      findEntry(entries, component.model_file) !== undefined &&
      (Array.isArray(component.fe_files) ? component.fe_files : []).every(
        (file) => typeof file === "string" && findEntry(entries, file) !== undefined,
      ),
  );
}

function unservableReason(metadata: Record<string, unknown>, entries: readonly ZipEntry[]): string {
  if (entries.some((entry) => entry.name.endsWith(".pkl")))
    return "pickled scikit-learn model without weight.json: not readable without Python";
  if (metadata.model_class === "xgboost") return "XGBoost model without weight.json: XGBoost models are not supported";
  return "no model files this server can read (neither our JSON component files nor a weight.json)";
}

/**
 * Reads a model from its zip entries and, optionally, an external weight.json (the kepler-model-db
 * sibling `<model>.json`). Throws InvalidInputError for a broken archive and UnservableModelError for
 * a valid one this server cannot run.
 */
export function describeStoredModel(
  location: ModelLocation,
  entries: readonly ZipEntry[],
  file: { zipSizeBytes: number; publishedTimeSeconds: number; externalWeightJson?: string },
): StoredModel {
  const name = `${location.modelName}.zip`;
  const parsedName = parseModelName(location.modelName);
  if (parsedName === undefined) throw new InvalidInputError(name, "model names must be <TrainerName>_<node_type>");
  const metadataEntry = findEntry(entries, METADATA_FILE);
  if (metadataEntry === undefined) throw new InvalidInputError(name, "the archive has no metadata.json");
  const metadataText = decoder.decode(metadataEntry.data);
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(metadataText) as Record<string, unknown>;
  } catch (error) {
    throw new InvalidInputError(`${name}/metadata.json`, `not valid JSON (${(error as Error).message})`);
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
    throw new InvalidInputError(`${name}/metadata.json`, "expected an object");
  if (metadata.model_name !== location.modelName)
    throw new InvalidInputError(
      `${name}/metadata.json.model_name`,
      `"${String(metadata.model_name)}" does not match the file name`,
    );
  if (metadata.output_type !== undefined && metadata.output_type !== location.outputType)
    throw new InvalidInputError(
      `${name}/metadata.json.output_type`,
      `"${String(metadata.output_type)}" but stored under ${location.outputType}`,
    );
  const features = Array.isArray(metadata.features) ? metadata.features.map(String) : [];
  const group = featureGroupOf(features);
  if (group !== undefined && group !== location.featureGroup && location.featureGroup !== "ThirdParty")
    throw new InvalidInputError(
      `${name}/metadata.json.features`,
      `are the ${group} features but stored under ${location.featureGroup}`,
    );
  const inner = findEntry(entries, WEIGHT_FILE);
  const weightText = inner !== undefined ? decoder.decode(inner.data) : file.externalWeightJson;
  let weightJson: string | undefined;
  if (weightText !== undefined) {
    parseWeightJson(weightText, `${name}/weight.json`);
    weightJson = componentWeightsText(weightText);
  }
  const format: ModelFormat | undefined = hasComponentFiles(metadata, entries)
    ? "components"
    : weightJson !== undefined
      ? "weights"
      : undefined;
  if (format === undefined) throw new UnservableModelError(unservableReason(metadata, entries));
  const mae = heldOutOf(metadata)?.maeWatts ?? metadata.mae;
  const model: StoredModel = {
    location,
    trainerName: parsedName.trainerName,
    nodeType: parsedName.nodeType,
    metadata,
    metadataText,
    features,
    maeWatts: typeof mae === "number" && Number.isFinite(mae) ? mae : undefined,
    format,
    zipSizeBytes: file.zipSizeBytes,
    publishedTimeSeconds: file.publishedTimeSeconds,
  };
  if (weightJson !== undefined) model.weightJson = weightJson;
  return model;
}

/** The registry's key of a location. */
export function locationKey(location: ModelLocation): string {
  return [location.pipelineName, location.energySource, location.outputType, location.featureGroup, location.modelName].join("/");
}
