// Where models live on disk, in the reference's kepler-model-db layout (spec §6.1):
// MODEL_PATH/<pipeline>/<source>/<AbsPower|DynPower>/<FeatureGroup>/<Trainer>_<node_type>/
import { join } from "node:path";
import { InvalidInputError } from "../domain/errors.js";

/** The reference's ModelOutputType names. */
export type OutputTypeName = "AbsPower" | "DynPower";

/** Every output type, AbsPower first (the order listings and the folder layout use). */
export const OUTPUT_TYPE_NAMES: readonly OutputTypeName[] = ["AbsPower", "DynPower"];

export function isOutputTypeName(value: unknown): value is OutputTypeName {
  return value === "AbsPower" || value === "DynPower";
}

/** The coordinates of one model group (all trainers of one pipeline/source/output type/feature group). */
export interface ModelGroup {
  pipelineName: string;
  energySource: string;
  outputType: OutputTypeName;
  featureGroup: string;
}

/** A model group plus the model name `<Trainer>_<node_type>`. */
export interface ModelLocation extends ModelGroup {
  modelName: string;
}

// Path segments come from requests: refuse anything that could leave the model folder.
const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Longest pipeline, feature group, trainer or model name. File systems refuse names over 255 bytes
 * (ENAMETOOLONG), and staging names add a prefix and suffix to a model name.
 */
export const MAX_NAME_LENGTH = 128;

// Error messages quote at most this much of a refused value, so a huge value cannot make a huge error.
const QUOTED_CHARS = 40;

/** Checks that a name is usable as one path segment (no separators, no `..`, at most MAX_NAME_LENGTH chars). */
export function assertPathSegment(value: string, field: string): string {
  if (value.length > MAX_NAME_LENGTH) {
    throw new InvalidInputError(
      field,
      `"${value.slice(0, QUOTED_CHARS)}..." has ${value.length} characters; at most ${MAX_NAME_LENGTH} are accepted`,
    );
  }
  if (!SAFE_SEGMENT.test(value) || value.includes("..")) {
    throw new InvalidInputError(field, `"${value}" is not a valid name (letters, digits, '.', '_' and '-' only)`);
  }
  return value;
}

/**
 * The folder of a pipeline that holds its accuracy report (`kepler-model report`), beside metadata.json;
 * the registry's /ui page shows it and ExportPipeline ships it.
 */
export const REPORT_FOLDER = "report";

/** The report's per-row predictions of one AbsPower model (held-out rows, measured and predicted watts). */
export function reportPredictionsFile(location: Omit<ModelLocation, "pipelineName" | "outputType">): string {
  return `predictions-${location.energySource}-${location.featureGroup}-${location.modelName}.csv`;
}

/** The reference's get_model_name: `<trainer>_<node_type>`. */
export function modelNameOf(trainerName: string, nodeType: number): string {
  return `${trainerName}_${nodeType}`;
}

/** MODEL_PATH/<pipeline>/<source>/<OutputType>/<FeatureGroup>. */
export function modelGroupPath(modelPath: string, group: ModelGroup): string {
  return join(
    modelPath,
    assertPathSegment(group.pipelineName, "pipeline_name"),
    assertPathSegment(group.energySource, "energy_source"),
    group.outputType,
    assertPathSegment(group.featureGroup, "feature_group"),
  );
}

/** The model folder MODEL_PATH/.../<FeatureGroup>/<model_name>. */
export function modelFolderPath(modelPath: string, location: ModelLocation): string {
  return join(modelGroupPath(modelPath, location), assertPathSegment(location.modelName, "model_name"));
}

/** The archive `<model_name>.zip` beside the model folder. */
export function modelZipPath(modelPath: string, location: ModelLocation): string {
  return `${modelFolderPath(modelPath, location)}.zip`;
}

/** `<group>/checkpoint/<Trainer>_<component>_<node_type>.json` (the reference writes `.pkl`). */
export function checkpointPath(
  modelPath: string,
  group: ModelGroup,
  trainerName: string,
  component: string,
  nodeType: number,
): string {
  return join(modelGroupPath(modelPath, group), "checkpoint", `${trainerName}_${component}_${nodeType}.json`);
}
