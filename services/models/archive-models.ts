// Reads our JSON component models straight from a model zip's entries (readModelFolder does the same
// from an unpacked folder on disk): the estimator predicts with them, the trainer continues from them.
import { InvalidInputError } from "../domain/errors.js";
import {
  type ComponentModelFile,
  type MaxAbsScalerFile,
  parseComponentModelFile,
  parseMaxAbsScalerFile,
} from "./component-model-file.js";
import { METADATA_FILE, type ModelDict } from "./model-archive.js";
import type { ZipEntry } from "./zip-writer.js";

/** A model's features, scaler and fitted component models. */
export interface ComponentModels {
  features: readonly string[];
  scaler: MaxAbsScalerFile;
  components: ReadonlyArray<readonly [string, ComponentModelFile]>;
}

const decoder = new TextDecoder();

function json(entries: readonly ZipEntry[], name: string): unknown {
  const entry = entries.find((e) => e.name === name);
  if (entry === undefined) throw new InvalidInputError("archive", `missing ${name}`);
  try {
    return JSON.parse(decoder.decode(entry.data));
  } catch (error) {
    throw new InvalidInputError(`archive/${name}`, `not valid JSON (${(error as Error).message})`);
  }
}

/** The scaler and component models of an archive in our format, components in `order`. */
export function readComponentModels(entries: readonly ZipEntry[], order: readonly string[]): ComponentModels {
  const metadata = json(entries, METADATA_FILE) as Record<string, unknown>;
  if (typeof metadata.model_file !== "string") throw new InvalidInputError("archive/metadata.json.model_file", "missing");
  const dict = json(entries, metadata.model_file) as ModelDict;
  const names = Object.keys(dict).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const first = dict[names[0] as string];
  if (first === undefined || first.fe_files[0] === undefined)
    throw new InvalidInputError("archive", "the component dict names no scaler");
  const scaler = parseMaxAbsScalerFile(json(entries, first.fe_files[0]), first.fe_files[0]);
  const components = names.map(
    (component) =>
      [
        component,
        parseComponentModelFile(json(entries, (dict[component] as ModelDict[string]).model_file), component),
      ] as readonly [string, ComponentModelFile],
  );
  return { features: scaler.features, scaler, components };
}
