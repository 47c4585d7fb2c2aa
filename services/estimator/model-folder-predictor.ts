// Loads a published model folder from a local MODEL_PATH as a predictor: our JSON component models
// (metadata.json has `format_version`), or weight.json alone for models imported from kepler-model-db,
// the same two kinds the registry model source turns into predictors.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { componentsOf, type EnergySource } from "../domain/energy-sources.js";
import { InvalidInputError, NotFoundError } from "../domain/errors.js";
import { METADATA_FILE, parseWeightJson, readModelFolder, WEIGHT_FILE } from "../models/index.js";
import { createComponentPredictor, createWeightPredictor, type Predictor } from "./domain/predictor.js";

/** A loaded local model. */
export interface FolderModel {
  readonly predictor: Predictor;
  /** The features it reads (metadata.json `features`). */
  readonly features: readonly string[];
  /** metadata.json `mae`: the training run's test MAE, watts (max over components). */
  readonly trainedMaeWatts: number | undefined;
  /** metadata.json, parsed (held-out rows and calibration residuals are read from it). */
  readonly metadata: Record<string, unknown>;
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError(`model file ${path}`);
    throw error;
  }
}

/** Reads the model folder of an energy source's model; InvalidInputError naming the file when it is malformed. */
export async function loadModelFolder(folderPath: string, energySource: EnergySource): Promise<FolderModel> {
  const metadataPath = join(folderPath, METADATA_FILE);
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(await readText(metadataPath)) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof SyntaxError) throw new InvalidInputError(metadataPath, `not valid JSON (${error.message})`);
    throw error;
  }
  const features = Array.isArray(metadata.features) ? metadata.features.filter((f): f is string => typeof f === "string") : [];
  const trainedMaeWatts = typeof metadata.mae === "number" ? metadata.mae : undefined;
  const order = componentsOf(energySource);
  if (typeof metadata.format_version === "number") {
    const folder = await readModelFolder(folderPath);
    const components = order.filter((c) => folder.components[c] !== undefined).map((c) => [c, folder.components[c]!] as const);
    const predictor = createComponentPredictor({ features: folder.scaler.features, scaler: folder.scaler, components });
    return { predictor, features: folder.scaler.features, trainedMaeWatts, metadata };
  }
  const modelName = typeof metadata.model_name === "string" ? metadata.model_name : "";
  // The reference's model name is <Trainer>_<node_type>.
  const trainerName = modelName.replace(/_\d+$/, "");
  const weights = parseWeightJson(await readText(join(folderPath, WEIGHT_FILE)));
  return { predictor: createWeightPredictor(weights, trainerName, features, order), features, trainedMaeWatts, metadata };
}
