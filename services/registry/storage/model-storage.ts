// The registry's storage seam: where model archives and pipeline files live, in the kepler-model-db
// layout (`<pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>.zip`, the weight sibling
// `<model>.json`, the unpacked folder `<model>/`, and pipeline files such as `metadata.json`,
// `node_type_index.json`, `profile/<source>.json`, `report/<file>`). The catalogue (domain/) keeps the
// in-memory view used for selection and events; a storage only moves bytes. A backend is one folder
// under storage/ implementing this interface (local/, s3/) and a StorageBackend, plus one line in backends.ts.
import type { ModelLocation, ZipEntry } from "../../models/index.js";
import type { S3Settings } from "../../object-store/index.js";

/** Steps a model write goes through, reported to `onStep` (tests stop a writing process at each). */
export type WriteStep = "staged" | "committed" | "replacing" | "done";

/** What to write for one model. */
export interface ModelFiles {
  zip: Uint8Array;
  /** The weight sibling `<model>.json`; undefined removes a stale one. */
  weightJson?: string;
  /** The unpacked folder's files (the zip's entries plus weight.json). */
  folderEntries: readonly ZipEntry[];
}

/** A model as a storage lists it. A model exists when its zip exists. */
export interface ListedModel {
  location: ModelLocation;
  /** Changes whenever the zip or the weight sibling changes (file times and sizes, or ETags). */
  signature: string;
  /** When the zip was last written, Unix seconds. */
  modifiedTimeSeconds: number;
}

/** A pipeline file as a storage lists it: `path` is relative to the pipeline (`metadata.json`, `profile/acpi.json`). */
export interface ListedPipelineFile {
  pipelineName: string;
  path: string;
  /** Changes whenever the file changes. */
  signature: string;
}

/** Everything a storage holds, as one listing. */
export interface StorageListing {
  /** Pipelines, by name. */
  pipelineNames: string[];
  models: ListedModel[];
  /**
   * Files at a pipeline's top and one folder below (`profile/`, `report/`), except the model tables
   * (`<source>_<OutputType>_model_metadata.csv`), which are derived from the models.
   */
  pipelineFiles: ListedPipelineFile[];
}

/** A model's bytes as stored. */
export interface StoredModelBytes {
  zip: Buffer;
  /** The weight sibling `<model>.json`, when there is one. */
  weightJson?: string;
}

/** What a write left: the signature and time the next listing shows for the model. */
export interface WrittenModel {
  signature: string;
  modifiedTimeSeconds: number;
}

/** Storage of models and pipeline files (see the file comment). */
export interface ModelStorage {
  /** The folder or `s3://bucket/prefix`, for messages and logs. */
  readonly name: string;
  /** Lists every model and pipeline file. */
  list(): Promise<StorageListing>;
  /** A model's zip and weight sibling; undefined when the model does not exist. */
  readModel(location: ModelLocation): Promise<StoredModelBytes | undefined>;
  /** A model's zip alone; undefined when the model does not exist. */
  readArchive(location: ModelLocation): Promise<Buffer | undefined>;
  /**
   * Writes a model so that readers see the previous version or the whole new one, never a mix.
   * `onStep("staged")` runs once everything but what makes the model visible is written.
   */
  writeModel(
    location: ModelLocation,
    files: ModelFiles,
    onStep?: (step: WriteStep) => void | Promise<void>,
  ): Promise<WrittenModel>;
  /** Removes a model (the zip first: the zip is what makes it exist); a missing model is no error. */
  removeModel(location: ModelLocation): Promise<void>;
  /** A pipeline file's bytes; undefined when there is none. */
  readPipelineFile(pipelineName: string, path: string): Promise<Buffer | undefined>;
  /** Writes a pipeline file whole (readers see the old or the new file); returns its new signature. */
  writePipelineFile(pipelineName: string, path: string, data: string | Uint8Array): Promise<string>;
  /** Removes a pipeline file; a missing file is no error. */
  removePipelineFile(pipelineName: string, path: string): Promise<void>;
  /**
   * The names of the files directly in a folder of a pipeline ("" for its top), sorted, hidden names
   * left out; none when the folder does not exist; undefined when the storage holds nothing of the pipeline.
   */
  listPipelineFiles(pipelineName: string, folder: string): Promise<string[] | undefined>;
  /**
   * The signature the listing would show for a model with these bytes, when a storage derives it from
   * the content (S3 ETags); undefined when it does not (file times).
   */
  contentSignature(model: { zip: Uint8Array; weightJson?: string }): string | undefined;
  /** Releases connections; the storage is not used afterwards. */
  close(): void;
}

/** Settings a backend may need, from the registry's config. */
export interface StorageSettings {
  s3: S3Settings;
}

/** One kind of shared store. */
export interface StorageBackend {
  /** The URL scheme it serves, with its colon (`s3:`). */
  readonly scheme: string;
  /** The URL's form, for messages (`s3://bucket/prefix`). */
  readonly urlForm: string;
  /** Throws InvalidInputError naming `field` when the URL is malformed. */
  checkUrl(url: string, field: string): void;
  /** Opens the store (no request is sent yet: an unreachable store fails on first use). */
  open(url: string, settings: StorageSettings, field: string): Promise<ModelStorage>;
}
