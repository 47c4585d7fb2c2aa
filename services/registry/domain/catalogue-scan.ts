// Reads a storage into the catalogue's view: every pipeline with its index and metadata, and every
// model this server can run. Models whose signature is unchanged are taken from the previous view
// without reading them again; a model that cannot be served is logged once per version and skipped.
import type { DomainLogger } from "../../kit/observe/logger.js";
import { readZip, type ZipLimits } from "../../models/index.js";
import { NODE_TYPE_INDEX_FILE, PIPELINE_METADATA_FILE } from "../storage/model-layout.js";
import type { ModelStorage } from "../storage/model-storage.js";
import { parseNodeTypeIndex, type PipelineState } from "./pipeline-state.js";
import { describeStoredModel, locationKey, type StoredModel, UnservableModelError } from "./stored-model.js";

/** A model held, with the storage signature it was read at. */
export interface CatalogueEntry {
  model: StoredModel;
  signature: string;
}

/** The catalogue's view of a storage. */
export interface CatalogueView {
  entries: Map<string, CatalogueEntry>;
  pipelines: Map<string, PipelineState>;
}

/** What a scan needs besides the storage. */
export interface ScanContext {
  logger: DomainLogger;
  zipLimits: ZipLimits;
  /** The previous view's models, reused when their signature is unchanged. */
  known: ReadonlyMap<string, CatalogueEntry>;
  /** Model key -> signature of versions already logged as not served (updated by the scan). */
  unservable: Map<string, string>;
}

async function readText(storage: ModelStorage, pipelineName: string, path: string): Promise<string | undefined> {
  return (await storage.readPipelineFile(pipelineName, path))?.toString("utf8");
}

/** Reads the storage's pipelines and models (see the file comment). */
export async function scanStorage(storage: ModelStorage, context: ScanContext): Promise<CatalogueView> {
  const listing = await storage.list();
  const pipelines = new Map<string, PipelineState>();
  for (const name of listing.pipelineNames) {
    const metadataText = await readText(storage, name, PIPELINE_METADATA_FILE);
    const indexText = await readText(storage, name, NODE_TYPE_INDEX_FILE);
    pipelines.set(name, { name, index: parseNodeTypeIndex(name, indexText, context.logger), metadataText });
  }
  const entries = new Map<string, CatalogueEntry>();
  for (const { location, signature, modifiedTimeSeconds } of listing.models) {
    const key = locationKey(location);
    const known = context.known.get(key);
    if (known !== undefined && known.signature === signature) {
      entries.set(key, known);
      continue;
    }
    try {
      const stored = await storage.readModel(location);
      if (stored === undefined) continue; // removed since the listing
      const model = describeStoredModel(location, readZip(stored.zip, `${location.modelName}.zip`, context.zipLimits), {
        zipSizeBytes: stored.zip.byteLength,
        publishedTimeSeconds: modifiedTimeSeconds,
        externalWeightJson: stored.weightJson,
      });
      entries.set(key, { model, signature });
      context.unservable.delete(key);
    } catch (error) {
      if (context.unservable.get(key) !== signature) {
        const reason = (error as Error).message;
        const level = error instanceof UnservableModelError ? "info" : "warn";
        context.logger[level]({ model: key, reason }, "model not served");
        context.unservable.set(key, signature);
      }
    }
  }
  return { entries, pipelines };
}

/**
 * Makes a view read while the catalogue kept publishing and removing agree with those writes: a model
 * published or replaced during the scan (its entry differs from `before`, the entries when the scan
 * started) is kept with its pipeline, one removed during it stays removed. Without this, a publish that
 * ended while a rescan was listing the storage would vanish until the next rescan, and a removal come back.
 */
export function keepWritesDuringScan(
  view: CatalogueView,
  before: ReadonlyMap<string, CatalogueEntry>,
  now: { entries: ReadonlyMap<string, CatalogueEntry>; pipelines: ReadonlyMap<string, PipelineState> },
): CatalogueView {
  for (const [key, entry] of now.entries) {
    if (before.get(key) === entry) continue;
    view.entries.set(key, entry);
    const pipelineName = entry.model.location.pipelineName;
    const state = now.pipelines.get(pipelineName);
    if (!view.pipelines.has(pipelineName) && state !== undefined) view.pipelines.set(pipelineName, state);
  }
  for (const key of before.keys()) if (!now.entries.has(key)) view.entries.delete(key);
  return view;
}
