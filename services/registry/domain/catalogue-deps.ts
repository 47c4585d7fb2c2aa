// What the catalogue is given: a logger, settings, and optionally the write side of a shared store.
import type { DomainLogger } from "../../kit/observe/logger.js";
import type { ModelLocation, ZipLimits } from "../../models/index.js";
import type { ArchiveSigningKey } from "../../models/archive-signature.js";
import type { ModelFiles, ModelStorage } from "../storage/model-storage.js";
import type { PublishGate } from "./publish-gate.js";

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
  /** Versions, gate and signing of this registry's publishes (EP-003); none of them when unset. */
  lifecycle?: ModelLifecycle;
}

/** How publishes keep versions, are gated and signed. */
export interface ModelLifecycle {
  /** Versions kept per model, the serving one included (1: none kept aside). */
  keptVersions: number;
  gate: PublishGate;
  /** Signs every published archive (signature.json) when set. */
  signingKey?: ArchiveSigningKey;
}

/** The write side of a shared store (shared-store.ts). A failure (UnavailableError naming it) leaves the storage untouched. */
export interface SharedStore {
  /** `s3://bucket/prefix`, for messages. */
  readonly name: string;
  /** The shared storage itself (kept versions live there). */
  readonly storage: ModelStorage;
  /** Writes a model; `onStaged` runs when everything but what makes the model exist is written. */
  putModel(location: ModelLocation, files: ModelFiles, onStaged?: () => void | Promise<void>): Promise<void>;
  removeModel(location: ModelLocation): Promise<void>;
  putPipelineFile(pipelineName: string, path: string, data: string | Uint8Array): Promise<void>;
}

/** Writes that apply what the shared store already holds (a pull) skip it. */
export interface WriteOptions {
  fromShared?: boolean;
}
