// Reads a published model folder back into typed objects (the estimator's and the tests' view).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { InvalidInputError, NotFoundError } from "../domain/errors.js";
import {
  type ComponentModelFile,
  type MaxAbsScalerFile,
  parseComponentModelFile,
  parseMaxAbsScalerFile,
} from "./component-model-file.js";
import { METADATA_FILE, type ModelDict, WEIGHT_FILE } from "./model-archive.js";
import { parseWeightJson, type WeightJson } from "./weight-json.js";

/** A model folder's content. */
export interface ModelFolder {
  metadata: Record<string, unknown>;
  modelDict: ModelDict;
  scaler: MaxAbsScalerFile;
  components: Record<string, ComponentModelFile>;
  weights?: WeightJson;
}

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError(`model file ${path}`);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(path, `not valid JSON (${(error as Error).message})`);
  }
}

/** Reads metadata.json, the component dict, the scaler, every component model and weight.json if present. */
export async function readModelFolder(folderPath: string): Promise<ModelFolder> {
  const metadata = (await readJson(join(folderPath, METADATA_FILE))) as Record<string, unknown>;
  if (typeof metadata.model_file !== "string")
    throw new InvalidInputError(`${folderPath}/${METADATA_FILE}.model_file`, "missing");
  const modelDict = (await readJson(join(folderPath, metadata.model_file))) as ModelDict;
  const components: Record<string, ComponentModelFile> = {};
  let scaler: MaxAbsScalerFile | undefined;
  for (const [component, entry] of Object.entries(modelDict)) {
    components[component] = parseComponentModelFile(
      await readJson(join(folderPath, entry.model_file)),
      `${component}.model_file`,
    );
    const scalerFile = entry.fe_files[0];
    if (scaler === undefined && scalerFile !== undefined)
      scaler = parseMaxAbsScalerFile(await readJson(join(folderPath, scalerFile)), scalerFile);
  }
  if (scaler === undefined) throw new InvalidInputError(folderPath, "the component dict names no scaler file");
  let weights: WeightJson | undefined;
  try {
    weights = parseWeightJson(await readFile(join(folderPath, WEIGHT_FILE), "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return { metadata, modelDict, scaler, components, weights };
}
