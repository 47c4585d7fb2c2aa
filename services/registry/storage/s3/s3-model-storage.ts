// The S3 storage: a bucket prefix in the kepler-model-db layout (AWS S3, IBM COS, Ceph radosgw, ...).
// A model exists when its `<model>.zip` exists: the unpacked files and the weight sibling are written
// before the zip and removed after it, and one PUT replaces an object whole, so a reader never sees
// half a model, and a write killed midway leaves only files no reader looks at (overwritten by the
// next write of that model). Every failure but a missing key is an UnavailableError naming the store.
import { createHash } from "node:crypto";
import { InvalidInputError } from "../../../domain/errors.js";
import type { ModelLocation } from "../../../models/index.js";
import { type ObjectBucket, openBucket, parseS3Url, type S3Settings } from "../../../object-store/index.js";
import { isSafeRelativePath, modelPathOf } from "../model-layout.js";
import type { ModelFiles, ModelStorage, StorageListing, StoredModelBytes, WriteStep, WrittenModel } from "../model-storage.js";
import { listingOf } from "./bucket-listing.js";
import { checkS3StoreFormat } from "./s3-store-format.js";

const md5 = (data: Uint8Array | string) =>
  createHash("md5")
    .update(typeof data === "string" ? new TextEncoder().encode(data) : data)
    .digest("hex");

/** A bucket prefix as a ModelStorage (see the file comment). */
export class S3ModelStorage implements ModelStorage {
  constructor(readonly bucket: ObjectBucket) {}

  /**
   * Opens `s3://bucket/prefix`, checking its store format (s3-store-format.ts: a newer one is refused,
   * a prefix without one is stamped); `field` names the setting in errors.
   */
  static async open(url: string, settings: S3Settings, field: string): Promise<S3ModelStorage> {
    const bucket = await openBucket(settings, parseS3Url(url, field));
    try {
      await checkS3StoreFormat(bucket);
    } catch (error) {
      bucket.close();
      throw error;
    }
    return new S3ModelStorage(bucket);
  }

  get name(): string {
    return this.bucket.name;
  }

  async list(): Promise<StorageListing> {
    return listingOf(await this.bucket.list());
  }

  async readModel(location: ModelLocation): Promise<StoredModelBytes | undefined> {
    const base = modelPathOf(location);
    const [zip, sibling] = await Promise.all([this.bucket.get(`${base}.zip`), this.bucket.get(`${base}.json`)]);
    if (zip === undefined) return undefined;
    return sibling === undefined ? { zip } : { zip, weightJson: sibling.toString("utf8") };
  }

  async readArchive(location: ModelLocation): Promise<Buffer | undefined> {
    return this.bucket.get(`${modelPathOf(location)}.zip`);
  }

  async writeModel(
    location: ModelLocation,
    files: ModelFiles,
    onStep: (step: WriteStep) => void | Promise<void> = () => {},
  ): Promise<WrittenModel> {
    const folder = modelPathOf(location);
    // Everything but the zip, in parallel: no reader looks at these before the zip exists.
    await Promise.all([
      ...files.folderEntries.map((entry) => this.bucket.put(`${folder}/${entry.name}`, entry.data)),
      ...(files.weightJson === undefined ? [] : [this.bucket.put(`${folder}.json`, files.weightJson)]),
    ]);
    await onStep("staged");
    await this.bucket.put(`${folder}.zip`, files.zip);
    if (files.weightJson === undefined) await this.bucket.delete([`${folder}.json`]);
    const written = { signature: this.contentSignature(files), modifiedTimeSeconds: Date.now() / 1000 };
    // Files of an earlier version that this one no longer has (unseen by readers: the zip is what counts).
    const names = new Set(files.folderEntries.map((entry) => `${folder}/${entry.name}`));
    const stale = (await this.bucket.list(folder)).map((e) => e.path).filter((path) => !names.has(path));
    if (stale.length > 0) await this.bucket.delete(stale);
    await onStep("done");
    return written;
  }

  async removeModel(location: ModelLocation): Promise<void> {
    const folder = modelPathOf(location);
    await this.bucket.delete([`${folder}.zip`]);
    const rest = (await this.bucket.list(folder)).map((e) => e.path);
    await this.bucket.delete([`${folder}.json`, ...rest]);
  }

  private pipelineFileKey(pipelineName: string, path: string): string {
    const key = `${pipelineName}/${path}`;
    // Checked like the local folder's paths, so both storages accept the same names.
    if (!isSafeRelativePath(key) || pipelineName.includes("/"))
      throw new InvalidInputError("path", `"${key}" leaves the pipeline folder`);
    return key;
  }

  async readPipelineFile(pipelineName: string, path: string): Promise<Buffer | undefined> {
    return this.bucket.get(this.pipelineFileKey(pipelineName, path));
  }

  async writePipelineFile(pipelineName: string, path: string, data: string | Uint8Array): Promise<string> {
    await this.bucket.put(this.pipelineFileKey(pipelineName, path), data);
    // The ETag of a single-part put is the MD5 of the bytes: what the next listing shows.
    return md5(data);
  }

  async removePipelineFile(pipelineName: string, path: string): Promise<void> {
    await this.bucket.delete([this.pipelineFileKey(pipelineName, path)]);
  }

  async listPipelineFiles(pipelineName: string, folder: string): Promise<string[] | undefined> {
    const prefix = folder === "" ? pipelineName : this.pipelineFileKey(pipelineName, folder);
    const names = (await this.bucket.list(prefix))
      .map((e) => e.path.slice(prefix.length + 1))
      .filter((name) => !name.includes("/") && !name.startsWith("."));
    if (names.length > 0) return names;
    return (await this.bucket.list(pipelineName)).length > 0 ? [] : undefined;
  }

  /** The listing's signature for these bytes: single-part PUT ETags are the MD5 of the bytes. */
  contentSignature(model: { zip: Uint8Array; weightJson?: string }): string {
    return `${md5(model.zip)}:${model.weightJson === undefined ? "-" : md5(model.weightJson)}`;
  }

  close(): void {
    this.bucket.close();
  }
}
