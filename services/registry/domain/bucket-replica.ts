// The registry's shared model store: an S3 bucket prefix in the kepler-model-db layout, with MODEL_PATH
// as this replica's local cache (selection and serving read the cache; nothing waits on S3 per request).
//
// Writes go to the bucket first and to the cache after, so a publish that returns has reached every
// replica's source of truth. A model exists in the bucket when its `<model>.zip` exists: the unpacked
// files and the weight sibling are written before the zip and removed after it, and one PUT replaces
// an object whole, so a reader never sees half a model, and a publish killed midway leaves only files
// no reader looks at (overwritten by the next publish of that model).
//
// Replicas see each other's writes by polling: `pull` lists the prefix and applies to the cache every
// model whose zip or sibling ETag changed, every pipeline file that changed, and removes models gone
// from the bucket; each change is announced on the store's events (WatchModels).
import { createHash } from "node:crypto";
import { energySourceOfLabel } from "../../domain/energy-sources.js";
import { InvalidInputError } from "../../domain/errors.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import type { ModelLocation, OutputTypeName } from "../../models/index.js";
import type { ObjectBucket, ObjectEntry } from "../../object-store/index.js";
import type { ModelFiles } from "./atomic-publish.js";
import type { ModelStore, RemoteModelStore } from "./model-store.js";
import { locationKey } from "./stored-model.js";

const OUTPUT_TYPES: readonly string[] = ["AbsPower", "DynPower"];
const MODEL_TABLE = /_model_metadata\.csv$/;
const DOWNLOAD_CONCURRENCY = 8;

/** What one pull did. */
export interface PullResult {
  published: number;
  removed: number;
  pipelineFiles: number;
  skipped: number;
}

interface BucketModel {
  location: ModelLocation;
  zip?: ObjectEntry;
  sibling?: ObjectEntry;
}

const groupFolder = (l: Omit<ModelLocation, "modelName">) =>
  `${l.pipelineName}/${l.energySource}/${l.outputType}/${l.featureGroup}`;
const md5 = (data: Uint8Array) => createHash("md5").update(data).digest("hex");

// Reads a listing in the kepler-model-db layout: models (zip and weight sibling) and pipeline files
// (top-level files and the files of one folder below, e.g. profile/, report/; model tables are derived).
function classify(entries: readonly ObjectEntry[]): { models: Map<string, BucketModel>; pipelineFiles: ObjectEntry[] } {
  const models = new Map<string, BucketModel>();
  const pipelineFiles: ObjectEntry[] = [];
  for (const entry of entries) {
    const parts = entry.path.split("/");
    const energySource = parts.length > 1 ? energySourceOfLabel(parts[1] as string) : undefined;
    if (energySource === undefined) {
      if ((parts.length === 2 && !MODEL_TABLE.test(entry.path)) || parts.length === 3) pipelineFiles.push(entry);
      continue;
    }
    if (parts.length !== 5 || !OUTPUT_TYPES.includes(parts[2] as string)) continue;
    const file = parts[4] as string;
    const kind = file.endsWith(".zip") ? "zip" : file.endsWith(".json") ? "sibling" : undefined;
    if (kind === undefined) continue;
    const location: ModelLocation = {
      pipelineName: parts[0] as string,
      energySource,
      outputType: parts[2] as OutputTypeName,
      featureGroup: parts[3] as string,
      modelName: file.slice(0, file.lastIndexOf(".")),
    };
    const key = locationKey(location);
    const model = models.get(key) ?? { location };
    model[kind] = entry;
    models.set(key, model);
  }
  return { models, pipelineFiles };
}

const signatureOf = (model: BucketModel) => `${model.zip?.etag ?? "-"}:${model.sibling?.etag ?? "-"}`;

/** An S3 bucket prefix shared by registry replicas (see the file comment). */
export class BucketReplica implements RemoteModelStore {
  // What this replica last wrote or applied: model key -> zip:sibling ETags, pipeline file path -> ETag.
  private readonly seenModels = new Map<string, string>();
  private readonly seenFiles = new Map<string, string>();
  private readonly unservable = new Map<string, string>();
  private firstPull = true;

  constructor(
    readonly bucket: ObjectBucket,
    private readonly logger: DomainLogger,
  ) {}

  get name(): string {
    return this.bucket.name;
  }

  async putModel(location: ModelLocation, files: ModelFiles, onStaged: () => void | Promise<void> = () => {}): Promise<void> {
    const folder = `${groupFolder(location)}/${location.modelName}`;
    // Everything but the zip, in parallel: no reader looks at these before the zip exists.
    await Promise.all([
      ...files.folderEntries.map((entry) => this.bucket.put(`${folder}/${entry.name}`, entry.data)),
      ...(files.weightJson === undefined ? [] : [this.bucket.put(`${folder}.json`, files.weightJson)]),
    ]);
    await onStaged();
    await this.bucket.put(`${folder}.zip`, files.zip);
    if (files.weightJson === undefined) await this.bucket.delete([`${folder}.json`]);
    // The ETags of single-part puts are the MD5 of the bytes: what the next pull will list.
    const sibling = files.weightJson === undefined ? "-" : md5(new TextEncoder().encode(files.weightJson));
    this.seenModels.set(locationKey(location), `${md5(files.zip)}:${sibling}`);
    // Files of an earlier version that this one no longer has (unseen by readers: the zip is what counts).
    const names = new Set(files.folderEntries.map((entry) => `${folder}/${entry.name}`));
    const stale = (await this.bucket.list(folder)).map((e) => e.path).filter((path) => !names.has(path));
    if (stale.length > 0) await this.bucket.delete(stale);
  }

  async removeModel(location: ModelLocation): Promise<void> {
    const folder = `${groupFolder(location)}/${location.modelName}`;
    await this.bucket.delete([`${folder}.zip`]);
    const rest = (await this.bucket.list(folder)).map((e) => e.path);
    await this.bucket.delete([`${folder}.json`, ...rest]);
    this.seenModels.delete(locationKey(location));
  }

  async putPipelineFile(pipelineName: string, fileName: string, data: Uint8Array | string): Promise<void> {
    const path = `${pipelineName}/${fileName}`;
    await this.bucket.put(path, data);
    this.seenFiles.set(path, md5(typeof data === "string" ? new TextEncoder().encode(data) : data));
  }

  /** Applies the bucket's changes since the last pull to the store's cache (see the file comment). */
  async pull(store: ModelStore): Promise<PullResult> {
    const result: PullResult = { published: 0, removed: 0, pipelineFiles: 0, skipped: 0 };
    const { models, pipelineFiles } = classify(await this.bucket.list());
    // Pipeline files first: a model's node type is looked up in node_type_index.json.
    for (const entry of pipelineFiles) {
      if (this.seenFiles.get(entry.path) === entry.etag) continue;
      const data = await this.bucket.get(entry.path);
      if (data === undefined) continue;
      const slash = entry.path.indexOf("/");
      await store.writePipelineFile(entry.path.slice(0, slash), entry.path.slice(slash + 1), data, { fromRemote: true });
      this.seenFiles.set(entry.path, entry.etag);
      result.pipelineFiles++;
    }
    const changed: Array<{ key: string; model: BucketModel; signature: string; seen: string | undefined }> = [];
    for (const [key, model] of models) {
      if (model.zip === undefined) continue;
      const signature = signatureOf(model);
      const seen = this.seenModels.get(key);
      if (seen === signature || this.unservable.get(key) === signature) continue;
      if (this.firstPull && (await this.cachedCopyMatches(store, model))) {
        this.seenModels.set(key, signature);
        continue;
      }
      changed.push({ key, model, signature, seen });
    }
    // Downloads run DOWNLOAD_CONCURRENCY at a time (a fresh replica fetches every model); the cache is
    // written one model at a time, in listing order.
    for (let start = 0; start < changed.length; start += DOWNLOAD_CONCURRENCY) {
      const batch = changed.slice(start, start + DOWNLOAD_CONCURRENCY);
      const downloads = await Promise.all(batch.map(({ model }) => this.download(model)));
      for (const [i, { key, model, signature, seen }] of batch.entries()) {
        const download = downloads[i];
        if (download === undefined) continue; // removed since the listing: the next pull sees it gone
        // A publish from this replica meanwhile is newer than what was listed: leave it to the next pull.
        if (this.seenModels.get(key) !== seen) continue;
        try {
          await store.publish({ location: model.location, ...download }, { kind: "published", fromRemote: true });
          this.seenModels.set(key, signature);
          this.unservable.delete(key);
          result.published++;
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
          this.unservable.set(key, signature);
          this.logger.warn({ model: key, store: this.name, reason: error.reason }, "model in the store not served");
          result.skipped++;
        }
      }
    }
    for (const cached of store.list()) {
      const key = locationKey(cached.location);
      if (models.get(key)?.zip !== undefined) continue;
      await store.remove(cached.location, { fromRemote: true });
      this.seenModels.delete(key);
      result.removed++;
    }
    this.firstPull = false;
    return result;
  }

  private async download(model: BucketModel): Promise<{ zip: Buffer; weightJson?: string } | undefined> {
    const base = `${groupFolder(model.location)}/${model.location.modelName}`;
    const [zip, sibling] = await Promise.all([
      this.bucket.get(`${base}.zip`),
      model.sibling === undefined ? undefined : this.bucket.get(`${base}.json`),
    ]);
    return zip === undefined ? undefined : { zip, weightJson: sibling?.toString("utf8") };
  }

  // At start the cache may already hold the bucket's model (a restart): no need to download it again.
  private async cachedCopyMatches(store: ModelStore, model: BucketModel): Promise<boolean> {
    const cached = store.list().find((m) => locationKey(m.location) === locationKey(model.location));
    if (cached === undefined || model.zip === undefined) return false;
    const zip = await store.readArchive(cached).catch(() => undefined);
    if (zip === undefined || md5(zip) !== model.zip.etag) return false;
    const sibling = cached.weightJson === undefined ? undefined : md5(new TextEncoder().encode(cached.weightJson));
    return sibling === model.sibling?.etag;
  }
}
