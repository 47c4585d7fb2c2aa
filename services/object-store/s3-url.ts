import { InvalidInputError } from "../domain/errors.js";

/** A bucket and a key prefix, from `s3://bucket/prefix` (the prefix has no leading or trailing slash). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

// S3's bucket naming rules (3-63 characters, lower case, digits, dots, hyphens).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses `s3://bucket[/prefix]`; `field` names the flag or argument in the error. */
export function parseS3Url(url: string, field: string): S3Location {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (match === null) throw new InvalidInputError(field, `expected s3://bucket/prefix, got "${url}"`);
  const bucket = match[1] as string;
  if (!BUCKET.test(bucket)) throw new InvalidInputError(field, `"${bucket}" is not a valid bucket name`);
  const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((part) => part === "." || part === ".."))
    throw new InvalidInputError(field, `the prefix "${prefix}" may not hold . or .. segments`);
  return { bucket, prefix };
}

/** `s3://bucket/prefix` of a location, for messages. */
export function formatS3Url(location: S3Location): string {
  return `s3://${location.bucket}${location.prefix === "" ? "" : `/${location.prefix}`}`;
}

/** The key of `path` (slash-separated, relative) under the location's prefix. */
export function keyUnder(location: S3Location, path: string): string {
  return location.prefix === "" ? path : `${location.prefix}/${path}`;
}
