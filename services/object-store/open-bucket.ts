// The S3 client's modules (~1 MB) load on the first bucket a process opens, so processes without an S3
// store (the embedded default, most commands) start without them.
import type { ObjectBucket } from "./object-bucket.js";
import type { S3Settings } from "./s3-settings.js";
import type { S3Location } from "./s3-url.js";

/** An ObjectBucket over a new S3 client for `settings`. */
export async function openBucket(settings: S3Settings, location: S3Location): Promise<ObjectBucket> {
  const { createS3Client, ObjectBucket } = await import("./object-bucket.js");
  return new ObjectBucket(createS3Client(settings), location);
}
