// Whole folders between the local disk and a bucket prefix, in the kepler-model-db layout: `s3-push`
// uploads a folder tree, `models import s3://...` zips a prefix for ImportPipeline.
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { NotFoundError } from "../domain/errors.js";
import { createZip } from "../models/index.js";
import type { ObjectBucket } from "./object-bucket.js";

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)).split(sep).join("/"))
    .sort();
}

/**
 * Uploads every file under `folder` to `<destination>/<path>` (destination relative to the bucket's
 * prefix; "" for the prefix itself). Model zips go last, so a registry polling the bucket never finds
 * a model whose weight sibling or folder is still missing. Returns the number of files.
 */
export async function uploadFolder(
  bucket: ObjectBucket,
  folder: string,
  destination: string,
  onFile: (path: string) => void = () => {},
): Promise<number> {
  const files = await filesUnder(folder);
  const ordered = [...files.filter((f) => !f.endsWith(".zip")), ...files.filter((f) => f.endsWith(".zip"))];
  for (const path of ordered) {
    const key = destination === "" ? path : `${destination}/${path}`;
    await bucket.put(key, await readFile(join(folder, path)));
    onFile(key);
  }
  return ordered.length;
}

/** Every object under `folder` of the bucket as one zip (paths relative to the folder). */
export async function zipBucketFolder(bucket: ObjectBucket, folder: string): Promise<Uint8Array> {
  const entries = await bucket.list(folder);
  if (entries.length === 0) throw new NotFoundError(`objects under ${bucket.name}${folder === "" ? "" : `/${folder}`}`);
  const skip = folder === "" ? 0 : folder.length + 1;
  const files: Array<{ name: string; data: Uint8Array }> = [];
  for (const entry of entries) {
    const data = await bucket.get(entry.path);
    if (data !== undefined) files.push({ name: entry.path.slice(skip), data });
  }
  return createZip(files);
}
