// One S3 bucket prefix as a flat map of relative paths to bytes: list, get, put, delete. Every failure
// other than a missing key becomes an UnavailableError naming the store (s3://bucket/prefix), so a
// caller answers UNAVAILABLE with the store's name whatever the S3 server said.
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { UnavailableError } from "../domain/errors.js";
import type { S3Settings } from "./s3-settings.js";
import { formatS3Url, keyUnder, type S3Location } from "./s3-url.js";

/** An object under the prefix: its path relative to the prefix, ETag (quotes removed), size and write time. */
export interface ObjectEntry {
  path: string;
  etag: string;
  sizeBytes: number;
  /** When the object was last written (S3's LastModified, whole seconds), Unix seconds. */
  modifiedTimeSeconds: number;
}

// The SDK's version is pinned and runs on Node 20; its notice about future releases is not for operators.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

/** Creates the S3 client every part of the project uses (path-style, checksums only where required). */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    ...(settings.endpoint === "" ? {} : { endpoint: settings.endpoint }),
    // Non-AWS servers (Ceph, IBM COS with HMAC keys, ...) address buckets by path and reject the
    // SDK's newer default checksums on streamed puts.
    forcePathStyle: settings.endpoint !== "",
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 2,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: settings.requestTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
    }),
  });
}

function isMissingKey(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.$metadata.httpStatusCode === 404);
}

function reasonOf(error: unknown): string {
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    return `${error.name}${status === undefined ? "" : ` (HTTP ${status})`}: ${error.message}`;
  }
  const code = (error as NodeJS.ErrnoException).code;
  return `${code === undefined ? "" : `${code}: `}${(error as Error).message}`;
}

/** A bucket prefix of an S3 server (see the file comment). */
export class ObjectBucket {
  /** `s3://bucket/prefix`, the store's name in messages and logs. */
  readonly name: string;

  constructor(
    private readonly client: S3Client,
    readonly location: S3Location,
  ) {
    this.name = formatS3Url(location);
  }

  private unavailable(action: string, error: unknown): UnavailableError {
    return new UnavailableError(`model store ${this.name}`, `${action} failed: ${reasonOf(error)}`, { cause: error });
  }

  /** Every object under `folder` (relative to the prefix; "" for all), by path. */
  async list(folder = ""): Promise<ObjectEntry[]> {
    const base = this.location.prefix === "" ? "" : `${this.location.prefix}/`;
    const listPrefix = folder === "" ? base : `${base}${folder.replace(/\/*$/, "/")}`;
    const entries: ObjectEntry[] = [];
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.client.send(
          new ListObjectsV2Command({ Bucket: this.location.bucket, Prefix: listPrefix, ContinuationToken: token }),
        );
      } catch (error) {
        throw this.unavailable("listing", error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined || object.Key.endsWith("/")) continue;
        entries.push({
          path: object.Key.slice(base.length),
          etag: (object.ETag ?? "").replace(/"/g, ""),
          sizeBytes: object.Size ?? 0,
          modifiedTimeSeconds: (object.LastModified?.getTime() ?? 0) / 1000,
        });
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** An object's bytes; undefined when there is no such object. */
  async get(path: string): Promise<Buffer | undefined> {
    try {
      const response = await this.client.send(
        new GetObjectCommand({ Bucket: this.location.bucket, Key: keyUnder(this.location, path) }),
      );
      const bytes = await response.Body?.transformToByteArray();
      return Buffer.from(bytes ?? new Uint8Array());
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw this.unavailable(`reading ${path}`, error);
    }
  }

  /** Writes one object (a single PUT: readers see the old object or the whole new one). */
  async put(path: string, data: Uint8Array | string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.location.bucket, Key: keyUnder(this.location, path), Body: data }),
      );
    } catch (error) {
      throw this.unavailable(`writing ${path}`, error);
    }
  }

  /**
   * Copies one object inside the bucket (the server copies the bytes: nothing passes through this
   * process); the copy is one object written whole, with the source's ETag (the MD5 of its bytes).
   */
  async copy(from: string, to: string): Promise<void> {
    const source = `${this.location.bucket}/${keyUnder(this.location, from)}`;
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.location.bucket,
          Key: keyUnder(this.location, to),
          CopySource: source.split("/").map(encodeURIComponent).join("/"),
        }),
      );
    } catch (error) {
      throw this.unavailable(`copying ${from} to ${to}`, error);
    }
  }

  /** Deletes objects (missing ones are no error). */
  async delete(paths: readonly string[]): Promise<void> {
    for (let start = 0; start < paths.length; start += 1000) {
      const batch = paths.slice(start, start + 1000);
      try {
        const response = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.location.bucket,
            Delete: { Objects: batch.map((path) => ({ Key: keyUnder(this.location, path) })), Quiet: true },
          }),
        );
        const failed = response.Errors?.[0];
        if (failed !== undefined) throw new Error(`${failed.Key}: ${failed.Code} ${failed.Message}`);
      } catch (error) {
        throw this.unavailable(`deleting ${batch.length} objects`, error);
      }
    }
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }
}
