// S3-compatible object storage: the registry's shared model store, `models import s3://...` and `s3-push`.
// The S3 SDK loads lazily: open a bucket with openBucket (object-bucket.js imports it at once).
export type { ObjectBucket, ObjectEntry } from "./object-bucket.js";
export { openBucket } from "./open-bucket.js";
export { s3ConfigSchema, type S3Settings, s3SettingsOf } from "./s3-settings.js";
export { formatS3Url, keyUnder, parseS3Url, type S3Location } from "./s3-url.js";
export { uploadFolder, zipBucketFolder } from "./folder-transfer.js";
