// What `models import` reads: a local pipeline folder or zip, a published zip by URL (kepler-model-db's
// GitHub releases, an air-gapped mirror), or a pipeline prefix of an S3 bucket. Always as zip bytes:
// the registry never reads a client's path.
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { readConfig } from "../services/kit/config/config-schema.js";
import { zipFolderTree } from "../services/models/index.js";
import { openBucket, parseS3Url, s3ConfigSchema, s3SettingsOf, zipBucketFolder } from "../services/object-store/index.js";
import type { Flags } from "../services/kit/config/config-schema.js";
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

const lastSegment = (path: string) =>
  path
    .replace(/[?#].*$/, "")
    .replace(/\/+$/, "")
    .split("/")
    .pop()
    ?.replace(/\.zip$/, "") ?? "";

async function download(url: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS), redirect: "follow" });
  } catch (error) {
    throw new Error(`could not download ${url}: ${(error as Error).message}`, { cause: error });
  }
  if (!response.ok) throw new Error(`could not download ${url}: HTTP ${response.status} ${response.statusText}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Reads the import argument (see the file comment); S3 settings come from the s3 flags and env. */
export async function readImportSource(argument: string, flags: Flags, env: NodeJS.ProcessEnv): Promise<ImportSource> {
  if (/^https?:\/\//.test(argument)) return { name: lastSegment(argument), zip: await download(argument) };
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
