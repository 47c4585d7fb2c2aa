// Checks a model a client publishes and turns it into what the catalogue holds (StoredModel) and what
// a storage writes (ModelFiles: the zip, the weight sibling, the unpacked folder).
import { assertEnergySource } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import {
  assertPathSegment,
  isOutputTypeName,
  type ModelLocation,
  namedWeightsText,
  readZip,
  WEIGHT_FILE,
  type ZipLimits,
} from "../../models/index.js";
import type { ModelFiles } from "../storage/model-storage.js";
import { describeStoredModel, type StoredModel, UnservableModelError } from "./stored-model.js";

/** A model to publish: the zip bytes and, optionally, weight.json text given beside it. */
export interface PublishInput {
  location: ModelLocation;
  zip: Uint8Array;
  weightJson?: string;
}

/** A location with every segment checked and the energy source in its canonical name. */
function assertModelLocation(location: ModelLocation): ModelLocation {
  for (const [field, value] of [
    ["location.pipeline_name", location.pipelineName],
    ["location.feature_group", location.featureGroup],
    ["location.model_name", location.modelName],
  ] as const) {
    assertPathSegment(value, field);
  }
  const energySource = assertEnergySource(location.energySource, "location.energy_source");
  if (!isOutputTypeName(location.outputType)) throw new InvalidInputError("location.output_type", "required");
  return { ...location, energySource };
}

/**
 * The model and its files. The archive must hold metadata.json naming this model and files this server
 * can run (our JSON component files, or a weight.json given in or beside it): InvalidInputError otherwise.
 */
export function modelToPublish(
  input: PublishInput,
  limits: ZipLimits,
  nowSeconds: number,
): { location: ModelLocation; model: StoredModel; files: ModelFiles } {
  const location = assertModelLocation(input.location);
  const entries = readZip(input.zip, "archive", limits);
  let model: StoredModel;
  try {
    model = describeStoredModel(location, entries, {
      zipSizeBytes: input.zip.byteLength,
      publishedTimeSeconds: nowSeconds,
      externalWeightJson: input.weightJson === "" ? undefined : input.weightJson,
    });
  } catch (error) {
    if (error instanceof UnservableModelError) throw new InvalidInputError("archive", error.message);
    throw error;
  }
  // The folder's weight.json names its model (namedWeightsText); the sibling <model>.json keeps the
  // reference's component-only shape (model.weightJson).
  const folderEntries = entries.filter((e) => e.name !== WEIGHT_FILE);
  if (model.weightJson !== undefined) {
    folderEntries.push({
      name: WEIGHT_FILE,
      data: new TextEncoder().encode(namedWeightsText(model.weightJson, location.modelName)),
    });
  }
  return { location, model, files: { zip: input.zip, weightJson: model.weightJson, folderEntries } };
}
