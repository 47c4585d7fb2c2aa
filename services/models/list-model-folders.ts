// Finds the published models of a pipeline in a local MODEL_PATH (kepler-model-db layout, spec §6.1):
// <pipeline>/<source>/<AbsPower|DynPower>/<FeatureGroup>/<model_name>/ holding a metadata.json.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { NotFoundError } from "../domain/errors.js";
import { METADATA_FILE } from "./model-archive.js";
import { assertPathSegment, type ModelLocation, OUTPUT_TYPE_NAMES } from "./model-location.js";

/** A model folder and where it sits in the layout. */
export interface ModelFolderEntry extends ModelLocation {
  readonly folderPath: string;
}

// Sub-folders in name order; temporary (dot-prefixed) and checkpoint folders are not models.
async function folders(path: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && e.name !== "checkpoint")
    .map((e) => e.name)
    .sort();
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Every model folder of a pipeline, in source, output type, feature group, model name order. NotFoundError without the pipeline folder. */
export async function listModelFolders(modelPath: string, pipelineName: string): Promise<ModelFolderEntry[]> {
  const pipelinePath = join(modelPath, assertPathSegment(pipelineName, "pipeline_name"));
  if (!(await stat(pipelinePath).catch(() => undefined))?.isDirectory())
    throw new NotFoundError(`pipeline folder ${pipelinePath}`);
  const found: ModelFolderEntry[] = [];
  for (const energySource of await folders(pipelinePath)) {
    for (const outputType of OUTPUT_TYPE_NAMES) {
      const outputPath = join(pipelinePath, energySource, outputType);
      for (const featureGroup of await folders(outputPath)) {
        for (const modelName of await folders(join(outputPath, featureGroup))) {
          const folderPath = join(outputPath, featureGroup, modelName);
          if (await isFile(join(folderPath, METADATA_FILE)))
            found.push({ pipelineName, energySource, outputType, featureGroup, modelName, folderPath });
        }
      }
    }
  }
  return found;
}
