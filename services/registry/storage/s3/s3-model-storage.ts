// The S3 storage: a bucket prefix in the kepler-model-db layout (AWS S3, IBM COS, Ceph radosgw, ...).
// A model exists when its `<model>.zip` exists or a publish of it is committed. Publishes are staged
// and committed first, then swapped into the layout (staged-publish.ts), so the layout objects of a model
// belong to one version whatever moment a writer dies, and registries never see half a model. Every
// failure but a missing key is an UnavailableError naming the store.
import { createHash } from "node:crypto";
import { InvalidInputError } from "../../../domain/errors.js";
import type { ModelLocation } from "../../../models/index.js";
import { type ObjectBucket, openBucket, parseS3Url, type S3Settings } from "../../../object-store/index.js";
import { isSafeRelativePath, modelPathOf } from "../model-layout.js";
import type { ModelFiles, ModelStorage, StorageListing, StoredModelBytes, WriteStep, WrittenModel } from "../model-storage.js";
import { listingOf } from "./bucket-listing.js";
import { checkS3StoreFormat } from "./s3-store-format.js";
import {
  completePublish,
  completeStalePublishes,
  pendingPublishes,
  readStaged,
  STAGING_ROOT,
  stageAndCommit,
  STALE_MARKER_SECONDS,
} from "./staged-publish.js";

const md5 = (data: Uint8Array | string) =>
  createHash("md5")
    .update(typeof data === "string" ? new TextEncoder().encode(data) : data)
    .digest("hex");

/** A bucket prefix as a ModelStorage (see the file comment). */
export class S3ModelStorage implements ModelStorage {
  /** `staleMarkerSeconds`: how old a killed writer's commit marker must be before this storage completes it. */
  constructor(
    readonly bucket: ObjectBucket,
    private readonly staleMarkerSeconds = STALE_MARKER_SECONDS,
  ) {}

  /**
   * Opens `s3://bucket/prefix`, checking its store format (s3-store-format.ts: a newer one is refused,
   * a prefix without one is stamped); `field` names the setting in errors.
   */
  static async open(url: string, settings: S3Settings, field: string): Promise<S3ModelStorage> {
    const bucket = await openBucket(settings, parseS3Url(url, field));
    try {
      await checkS3StoreFormat(bucket);
      await completeStalePublishes(bucket, await bucket.list(STAGING_ROOT));
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
    const entries = await this.bucket.list();
    // A killed writer's committed publish is completed here; the listing shows it either way.
    await completeStalePublishes(this.bucket, entries, this.staleMarkerSeconds);
    return listingOf(entries);
  }

  async readModel(location: ModelLocation): Promise<StoredModelBytes | undefined> {
    const base = modelPathOf(location);
    for (let attempt = 0; ; attempt++) {
      const [zip, sibling] = await Promise.all([this.bucket.get(`${base}.zip`), this.bucket.get(`${base}.json`)]);
      // Listed after the reads: a swap that overlapped them had its marker written before it began.
      const pending = pendingPublishes(await this.bucket.list(`${STAGING_ROOT}/${base}`)).get(base);
      if (pending === undefined) {
        if (zip === undefined) return undefined;
        return sibling === undefined ? { zip } : { zip, weightJson: sibling.toString("utf8") };
      }
      const staged = await readStaged(this.bucket, pending.folder);
      // Gone: the publish completed meanwhile, so the layout holds it now.
      if (staged !== undefined || attempt === 2) return staged;
    }
  }

  async readArchive(location: ModelLocation): Promise<Buffer | undefined> {
    return (await this.readModel(location))?.zip;
  }

  async writeModel(
    location: ModelLocation,
    files: ModelFiles,
    onStep: (step: WriteStep) => void | Promise<void> = () => {},
  ): Promise<WrittenModel> {
    const base = modelPathOf(location);
    const signature = this.contentSignature(files);
    const folder = await stageAndCommit(this.bucket, base, files, signature, onStep);
    await completePublish(this.bucket, base, folder, onStep, files);
    await onStep("done");
    return { signature, modifiedTimeSeconds: Date.now() / 1000 };
  }

  async removeModel(location: ModelLocation): Promise<void> {
    const folder = modelPathOf(location);
    // A committed publish of it first (its marker would bring the model back), then the zip.
    const staged = (await this.bucket.list(`${STAGING_ROOT}/${folder}`)).map((e) => e.path);
    await this.bucket.delete(staged);
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
