// One model archive: the files of a model folder, in the reference's layout (spec §6.1-6.3):
//   metadata.json, <model_name>.json (component dict), scaler.json, [poly_scaler.json],
//   <component>.json per component, and weight.json for weight-capable trainers.
import type { ComponentModelFile, MaxAbsScalerFile, PolynomialFeaturesFile } from "./component-model-file.js";
import { componentModelFileName, SCALER_FILE } from "./component-model-file.js";
import type { ModelLocation } from "./model-location.js";
import { namedWeightsText, type WeightJson } from "./weight-json.js";
import { createZip, type ZipEntry } from "./zip-writer.js";

/** The component dict `<model_name>.json`: component -> its model file, features and fe files. */
export type ModelDict = Record<string, { model_file: string; features: string[]; fe_files: string[] }>;

/** A trainer-level feature-engineering file (the polynomial expansion). */
export interface FeatureEngineeringFile {
  name: string;
  content: PolynomialFeaturesFile;
}

/** What goes into a model folder, before serialisation. */
export interface ModelArchiveContent {
  /** metadata.json content, keys already in order (createModelMetadata). */
  metadata: Record<string, unknown>;
  features: readonly string[];
  scaler: MaxAbsScalerFile;
  featureEngineering: readonly FeatureEngineeringFile[];
  /** Component -> fitted model, in the source's component order. */
  components: ReadonlyArray<readonly [component: string, model: ComponentModelFile]>;
  weights?: WeightJson;
}

/** A serialised model folder, ready to publish. */
export interface ModelArchive {
  location: ModelLocation;
  files: ZipEntry[];
  /** The files zipped (createZip), when built already, e.g. on the fit's worker thread. */
  zip?: Uint8Array;
}

/**
 * Name of the weight file inside the model folder (and, unlike the reference, inside the zip). It
 * carries `model_name` (namedWeightsText); the kepler-model-db sibling `<model>.json` does not.
 */
export const WEIGHT_FILE = "weight.json";
export const METADATA_FILE = "metadata.json";

const encoder = new TextEncoder();
const json = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));

/** The component dict for the given components. */
export function createModelDict(
  components: readonly string[],
  features: readonly string[],
  feFiles: readonly string[],
): ModelDict {
  const dict: ModelDict = {};
  for (const component of components) {
    dict[component] = {
      model_file: componentModelFileName(component),
      features: [...features],
      fe_files: [SCALER_FILE, ...feFiles],
    };
  }
  return dict;
}

/** Serialises an archive's files (metadata first, weight.json last). */
export function createModelArchive(location: ModelLocation, content: ModelArchiveContent): ModelArchive {
  const feNames = content.featureEngineering.map((fe) => fe.name);
  const dict = createModelDict(
    content.components.map(([component]) => component),
    content.features,
    feNames,
  );
  const files: ZipEntry[] = [
    { name: METADATA_FILE, data: json(content.metadata) },
    { name: `${location.modelName}.json`, data: json(dict) },
    { name: SCALER_FILE, data: json(content.scaler) },
    ...content.featureEngineering.map((fe) => ({ name: fe.name, data: json(fe.content) })),
    ...content.components.map(([component, model]) => ({ name: componentModelFileName(component), data: json(model) })),
  ];
  if (content.weights !== undefined)
    files.push({ name: WEIGHT_FILE, data: encoder.encode(namedWeightsText(content.weights, location.modelName)) });
  return { location, files };
}

/** The archive's zip: the one built with it, else made now. */
export function archiveZip(archive: ModelArchive): Uint8Array {
  return archive.zip ?? createZip(archive.files);
}
