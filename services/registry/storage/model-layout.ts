// The kepler-model-db layout every storage writes, as relative slash-separated paths:
// `<pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>.zip`, `<model>.json` (the weight sibling),
// `<model>/` (the unpacked folder), and the pipeline's own files at `<pipeline>/<path>`.
import type { ModelLocation } from "../../models/index.js";

export const PIPELINE_METADATA_FILE = "metadata.json";
export const NODE_TYPE_INDEX_FILE = "node_type_index.json";

/** `<pipeline>/<source>/<OutputType>/<FeatureGroup>` of a location. */
export function groupPathOf(location: Omit<ModelLocation, "modelName">): string {
  return `${location.pipelineName}/${location.energySource}/${location.outputType}/${location.featureGroup}`;
}

/** `<group>/<model>`: append `.zip` for the archive, `.json` for the weight sibling, nothing for the folder. */
export function modelPathOf(location: ModelLocation): string {
  return `${groupPathOf(location)}/${location.modelName}`;
}

/** Whether a pipeline file is a model table (`<source>_<OutputType>_model_metadata.csv`), derived from the models. */
export function isModelTable(path: string): boolean {
  return /_model_metadata\.csv$/.test(path);
}

/** Whether a relative path stays inside its folder: no empty, `.` or `..` segments, no `\` or NUL. */
export function isSafeRelativePath(path: string): boolean {
  return (
    !path.includes("\\") && !path.includes("\0") && path.split("/").every((part) => part !== "" && part !== "." && part !== "..")
  );
}
