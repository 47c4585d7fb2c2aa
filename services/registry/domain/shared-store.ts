// A store shared by several registries (any storage: an S3 bucket prefix, ...), with each registry's
// own storage as its local cache (selection and serving read the cache; nothing waits on the shared
// store per request). Writes go to the shared store first and to the cache after, so a publish that
// returns has reached every replica's source of truth.
//
// Replicas see each other's writes by polling: `pull` lists the shared store and applies to the cache
// every model whose signature changed, every pipeline file that changed, and removes models gone from
// the store; each change is announced on the catalogue's events (WatchModels).
import { InvalidInputError } from "../../domain/errors.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import type { ModelLocation } from "../../models/index.js";
import type { ListedModel, ModelFiles, ModelStorage, StoredModelBytes } from "../storage/model-storage.js";
import type { SharedStore } from "./catalogue-deps.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import { modelToPublish } from "./model-to-publish.js";
import { locationKey } from "./stored-model.js";

const DOWNLOAD_CONCURRENCY = 8;

/** What one pull did. */
export interface PullResult {
  published: number;
  removed: number;
  pipelineFiles: number;
  skipped: number;
}

/** A storage shared by registry replicas (see the file comment). */
export class SharedModelStore implements SharedStore {
  // What this replica last wrote or applied: model key -> signature, pipeline file path -> signature.
  private readonly seenModels = new Map<string, string>();
  private readonly seenFiles = new Map<string, string>();
  private readonly unservable = new Map<string, string>();
  private firstPull = true;

  constructor(
    readonly storage: ModelStorage,
    private readonly logger: DomainLogger,
  ) {}

  get name(): string {
    return this.storage.name;
  }

  async putModel(location: ModelLocation, files: ModelFiles, onStaged: () => void | Promise<void> = () => {}): Promise<void> {
    const written = await this.storage.writeModel(location, files, (step) => (step === "staged" ? onStaged() : undefined));
    this.seenModels.set(locationKey(location), written.signature);
  }

  async removeModel(location: ModelLocation): Promise<void> {
    await this.storage.removeModel(location);
    this.seenModels.delete(locationKey(location));
  }

  async putPipelineFile(pipelineName: string, path: string, data: Uint8Array | string): Promise<void> {
    this.seenFiles.set(`${pipelineName}/${path}`, await this.storage.writePipelineFile(pipelineName, path, data));
  }

  /** Applies the shared store's changes since the last pull to the catalogue (see the file comment). */
  async pull(catalogue: ModelCatalogue): Promise<PullResult> {
    const result: PullResult = { published: 0, removed: 0, pipelineFiles: 0, skipped: 0 };
    const listing = await this.storage.list();
    // Pipeline files first: a model's node type is looked up in node_type_index.json.
    for (const file of listing.pipelineFiles) {
      const key = `${file.pipelineName}/${file.path}`;
      if (this.seenFiles.get(key) === file.signature) continue;
      const data = await this.storage.readPipelineFile(file.pipelineName, file.path);
      if (data === undefined) continue;
      await catalogue.writePipelineFile(file.pipelineName, file.path, data, { fromShared: true });
      this.seenFiles.set(key, file.signature);
      result.pipelineFiles++;
    }
    const changed: Array<{ key: string; model: ListedModel; seen: string | undefined }> = [];
    for (const model of listing.models) {
      const key = locationKey(model.location);
      const seen = this.seenModels.get(key);
      if (seen === model.signature || this.unservable.get(key) === model.signature) continue;
      if (this.firstPull && (await this.cachedCopyMatches(catalogue, model))) {
        this.seenModels.set(key, model.signature);
        continue;
      }
      changed.push({ key, model, seen });
    }
    // Downloads run DOWNLOAD_CONCURRENCY at a time (a fresh replica fetches every model); the cache is
    // written one model at a time, in listing order.
    for (let start = 0; start < changed.length; start += DOWNLOAD_CONCURRENCY) {
      const batch = changed.slice(start, start + DOWNLOAD_CONCURRENCY);
      const downloads = await Promise.all(batch.map(({ model }) => this.storage.readModel(model.location)));
      for (const [i, { key, model, seen }] of batch.entries()) {
        const download = downloads[i];
        if (download === undefined) continue; // removed since the listing: the next pull sees it gone
        // A publish from this replica meanwhile is newer than what was listed: leave it to the next pull.
        if (this.seenModels.get(key) !== seen) continue;
        try {
          if (await this.holdsSameModel(catalogue, model.location, download)) {
            this.seenModels.set(key, model.signature);
            continue;
          }
          await catalogue.publish({ location: model.location, ...download }, { kind: "published", fromShared: true });
          this.seenModels.set(key, model.signature);
          this.unservable.delete(key);
          result.published++;
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
          this.unservable.set(key, model.signature);
          this.logger.warn({ model: key, store: this.name, reason: error.reason }, "model in the store not served");
          result.skipped++;
        }
      }
    }
    const inStore = new Set(listing.models.map((m) => locationKey(m.location)));
    for (const cached of catalogue.list()) {
      const key = locationKey(cached.location);
      if (inStore.has(key)) continue;
      await catalogue.remove(cached.location, { fromShared: true });
      this.seenModels.delete(key);
      result.removed++;
    }
    this.firstPull = false;
    return result;
  }

  // A writer puts the weight sibling before the zip, so a listing can catch a model whose sibling is
  // new and whose zip is not yet: when that serves what the cache already holds (the zip carries its
  // weight.json), it is recorded as seen, not announced again; the zip's change comes with a later pull.
  private async holdsSameModel(catalogue: ModelCatalogue, location: ModelLocation, download: StoredModelBytes): Promise<boolean> {
    const cached = catalogue.list().find((m) => locationKey(m.location) === locationKey(location));
    if (cached === undefined) return false;
    const zip = await catalogue.readArchive(cached).catch(() => undefined);
    if (zip === undefined || !zip.equals(download.zip)) return false;
    return modelToPublish({ location, ...download }, catalogue.zipLimits, 0).model.weightJson === cached.weightJson;
  }

  // At start the cache may already hold the store's model (a restart): no need to download it again.
  // Only a storage whose signatures follow from the bytes (S3 ETags) can tell.
  private async cachedCopyMatches(catalogue: ModelCatalogue, model: ListedModel): Promise<boolean> {
    const cached = catalogue.list().find((m) => locationKey(m.location) === locationKey(model.location));
    if (cached === undefined) return false;
    const zip = await catalogue.readArchive(cached).catch(() => undefined);
    if (zip === undefined) return false;
    return this.storage.contentSignature({ zip, weightJson: cached.weightJson }) === model.signature;
  }

  /** Releases the shared store's connections. */
  close(): void {
    this.storage.close();
  }
}
