// What the catalogue is given: a logger, settings, and optionally the write side of a shared store.
import type { DomainLogger } from "../../kit/observe/logger.js";
import type { ModelLocation, ZipLimits } from "../../models/index.js";
import type { ModelFiles } from "../storage/model-storage.js";

/** What the catalogue needs besides its storage. */
export interface ModelCatalogueDeps {
  logger: DomainLogger;
  /** Pipeline serving each energy source when a request names none; otherwise every pipeline of the source is searched. */
  sourcePipelines?: Readonly<Record<string, string>>;
  nowSeconds?: () => number;
  /** Bounds on archives read from clients and from the storage (default DEFAULT_ZIP_LIMITS). */
  zipLimits?: ZipLimits;
  /** A store shared with other registries, written before the storage, which then is its cache. */
  shared?: SharedStore;
}

/** The write side of a shared store (shared-store.ts). A failure (UnavailableError naming it) leaves the storage untouched. */
export interface SharedStore {
  /** `s3://bucket/prefix`, for messages. */
  readonly name: string;
  /** Writes a model; `onStaged` runs when everything but what makes the model exist is written. */
  putModel(location: ModelLocation, files: ModelFiles, onStaged?: () => void | Promise<void>): Promise<void>;
  removeModel(location: ModelLocation): Promise<void>;
  putPipelineFile(pipelineName: string, path: string, data: string | Uint8Array): Promise<void>;
}

/** Writes that apply what the shared store already holds (a pull) skip it. */
export interface WriteOptions {
  fromShared?: boolean;
}
