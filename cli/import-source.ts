// What `models import` reads: a local pipeline folder or zip, a published zip by URL (kepler-model-db's
// GitHub releases, an air-gapped mirror), or a pipeline prefix of an S3 bucket. Always as zip bytes:
// the registry never reads a client's path.
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readConfig } from "../services/kit/config/config-schema.js";
import { readCappedBody } from "../services/domain/capped-response-body.js";
import { zipFolderTree } from "../services/models/index.js";
import { openBucket, parseS3Url, s3ConfigSchema, s3SettingsOf, zipBucketFolder } from "../services/object-store/index.js";
import type { Flags } from "../services/kit/config/config-schema.js";
import { registryLimitKeys } from "../services/registry/config.js";
import type { FlagSpec } from "./command.js";

/** The S3 settings as command flags (models import s3://..., s3-push). */
export const S3_FLAGS: readonly FlagSpec[] = Object.values(s3ConfigSchema).map((key) => ({
  name: key.flag,
  valueName: key.type === "integer" ? "ms" : "value",
  description: `${key.description} (env ${key.env})`,
}));

/** A pipeline to import: its default name and the zip. */
export interface ImportSource {
  name: string;
  zip: Uint8Array;
}

const DOWNLOAD_TIMEOUT_MS = 120_000;

/** The most a zip given by URL may be: the largest archive a registry accepts by default. */
export const MAX_DOWNLOAD_BYTES = registryLimitKeys.maxUploadBytes.default;

const lastSegment = (path: string) =>
  path
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .split("/")
    .pop()
    ?.replace(/\.zip$/, "") ?? "";

// Read chunk by chunk and cut off past `maxBytes` (a larger Content-Length is refused before reading):
// a zip the registry would refuse anyway is not held whole in memory first.
async function download(url: string, maxBytes: number): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: "follow" });
  } catch (error) {
    throw new Error(`could not download ${url}: ${(error as Error).message}`, { cause: error });
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new Error(`could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  }
  return readCappedBody(response, url, { limitBytes: maxBytes, limitName: "the registry's default --registry-max-upload-bytes" });
}

/**
 * Reads the import argument (see the file comment); S3 settings come from the s3 flags and env. A zip by
 * URL may be at most `maxDownloadBytes` (tests lower it).
 */
export async function readImportSource(
  argument: string,
  flags: Flags,
  env: NodeJS.ProcessEnv,
  maxDownloadBytes = MAX_DOWNLOAD_BYTES,
): Promise<ImportSource> {
  if (/^https?:\/\//.test(argument)) return { name: lastSegment(argument), zip: await download(argument, maxDownloadBytes) };
  if (argument.startsWith("s3://")) {
    const location = parseS3Url(argument, "models import");
    const bucket = await openBucket(s3SettingsOf(readConfig(s3ConfigSchema, env, flags)), location);
    try {
      return { name: lastSegment(location.prefix), zip: await zipBucketFolder(bucket, "") };
    } finally {
      bucket.close();
    }
  }
  const local = resolve(argument);
  const zip = (await stat(local)).isDirectory() ? await zipFolderTree(local) : await readFile(local);
  return { name: lastSegment(local), zip };
}
