// How a model goes into the bucket so that the objects readers of the kepler-model-db layout fetch
// (`<model>.zip`, the weight sibling `<model>.json`, the unpacked `<model>/` files) belong to one version
// at every moment, whatever moment the writing process dies. S3 writes one object at a time and has no
// multi-object transaction, so overwriting in place cannot: a kill between the sibling and the zip left
// the new weights beside the old zip. Instead:
//   1. the new version is staged under `.publishing/<model>/<signature>/` (model.zip, model.json, files/),
//   2. a `committed` marker is written there: from then on the publish is completed even if its writer dies,
//   3. the old version's layout objects are deleted,
//   4. the new version is written into the layout (by its writer; copied from the staged objects when
//      completing a killed writer's publish), the zip last,
//   5. the markers and the staged copies are deleted.
// During 3 and 4 the layout holds part of the old version or part of the new one, never both; registries
// list and read the staged version while a marker exists (bucket-listing.ts), so for them the model never
// goes away. A marker left by a killed writer is completed (3-5 again) by the next registry that opens
// or lists the store once the marker is older than STALE_MARKER_SECONDS (before, its writer may still be
// at it). Staged copies without a marker (a writer killed before 2) are deleted after ORPHAN_SECONDS.
import type { ObjectBucket, ObjectEntry } from "../../../object-store/index.js";
import type { ModelFiles, WriteStep } from "../model-storage.js";

/** The folder under the store's prefix where versions are staged (hidden: no layout reader looks there). */
export const STAGING_ROOT = ".publishing";
const MARKER = "committed";
/** A marker this old has no live writer: the S3 requests of steps 3-5 give up long before. */
export const STALE_MARKER_SECONDS = 120;
const ORPHAN_SECONDS = 600;

/** A publish past its commit point, as a listing shows it. */
export interface PendingPublish {
  /** The staging folder, relative to the store's prefix. */
  folder: string;
  /** The signature the model will have in the layout: `<zip MD5>:<sibling MD5 or ->`. */
  signature: string;
  modifiedTimeSeconds: number;
}

const stagingFolder = (base: string, signature: string) => `${STAGING_ROOT}/${base}/${signature.replace(":", "_")}`;

/** Steps 1 and 2 (see the file comment): stages the version and commits it; returns the staging folder. */
export async function stageAndCommit(
  bucket: ObjectBucket,
  base: string,
  files: ModelFiles,
  signature: string,
  onStep: (step: WriteStep) => void | Promise<void>,
): Promise<string> {
  const folder = stagingFolder(base, signature);
  await Promise.all([
    bucket.put(`${folder}/model.zip`, files.zip),
    ...(files.weightJson === undefined ? [] : [bucket.put(`${folder}/model.json`, files.weightJson)]),
    ...files.folderEntries.map((entry) => bucket.put(`${folder}/files/${entry.name}`, entry.data)),
  ]);
  await onStep("staged");
  // One PUT: before it the old version stays, after it the new one will be completed.
  await bucket.put(`${folder}/${MARKER}`, JSON.stringify({ model: base, signature }));
  await onStep("committed");
  return folder;
}

/**
 * Steps 3 to 5 (see the file comment) for the version staged in `folder`; safe to run again. The writer
 * passes its `files` (written from memory: a PUT is cheaper than a server-side copy); a completion of a
 * killed writer's publish copies the staged objects. Returns false when the staged zip is gone (another
 * registry completed the publish and deleted it).
 */
export async function completePublish(
  bucket: ObjectBucket,
  base: string,
  folder: string,
  onStep: (step: WriteStep) => void | Promise<void> = () => {},
  files?: ModelFiles,
): Promise<boolean> {
  const [staged, old] = await Promise.all([
    files === undefined ? bucket.list(folder).then((entries) => entries.map((entry) => entry.path)) : undefined,
    bucket.list(base).then((entries) => entries.map((entry) => entry.path)),
  ]);
  const complete = staged === undefined || staged.includes(`${folder}/model.zip`);
  if (complete) {
    // One request: whichever of these goes first, what is left is part of the old version.
    await bucket.delete([`${base}.zip`, `${base}.json`, ...old]);
    await onStep("replacing");
    const filesFolder = `${folder}/files/`;
    if (files !== undefined) {
      await Promise.all([
        ...files.folderEntries.map((entry) => bucket.put(`${base}/${entry.name}`, entry.data)),
        ...(files.weightJson === undefined ? [] : [bucket.put(`${base}.json`, files.weightJson)]),
      ]);
      await bucket.put(`${base}.zip`, files.zip);
    } else {
      await Promise.all([
        ...staged!
          .filter((path) => path.startsWith(filesFolder))
          .map((path) => bucket.copy(path, `${base}/${path.slice(filesFolder.length)}`)),
        ...(staged!.includes(`${folder}/model.json`) ? [bucket.copy(`${folder}/model.json`, `${base}.json`)] : []),
      ]);
      await bucket.copy(`${folder}/model.zip`, `${base}.zip`);
    }
  }
  // Every marker of this model (an older killed publish's too) and the staged bytes, in one request: a
  // reader that follows a marker to deleted bytes reads the layout again (S3ModelStorage.readModel).
  await bucket.delete((await bucket.list(`${STAGING_ROOT}/${base}`)).map((entry) => entry.path));
  return complete;
}

const isMarker = (path: string) => path.endsWith(`/${MARKER}`);

/** The newest committed publish of each model (by its layout path, `<pipeline>/.../<model>`) in a listing. */
export function pendingPublishes(entries: readonly ObjectEntry[]): Map<string, PendingPublish> {
  const pending = new Map<string, PendingPublish>();
  for (const entry of entries) {
    if (!entry.path.startsWith(`${STAGING_ROOT}/`) || !isMarker(entry.path)) continue;
    const folder = entry.path.slice(0, -MARKER.length - 1);
    const base = folder.slice(STAGING_ROOT.length + 1, folder.lastIndexOf("/"));
    const signature = folder.slice(folder.lastIndexOf("/") + 1).replace("_", ":");
    const known = pending.get(base);
    if (known !== undefined && known.modifiedTimeSeconds > entry.modifiedTimeSeconds) continue;
    pending.set(base, { folder, signature, modifiedTimeSeconds: entry.modifiedTimeSeconds });
  }
  return pending;
}

/**
 * Completes the committed publishes whose marker is at least `staleSeconds` old and deletes staged
 * copies that were never committed (ORPHAN_SECONDS old); `entries` is a listing of the staging folder
 * or of the whole store. Returns the models completed.
 */
export async function completeStalePublishes(
  bucket: ObjectBucket,
  entries: readonly ObjectEntry[],
  staleSeconds = STALE_MARKER_SECONDS,
): Promise<string[]> {
  const now = Date.now() / 1000;
  const completed: string[] = [];
  const pending = pendingPublishes(entries);
  for (const [base, publish] of pending) {
    if (now - publish.modifiedTimeSeconds < staleSeconds) continue;
    await completePublish(bucket, base, publish.folder);
    completed.push(base);
  }
  const orphans = entries.filter((entry) => {
    if (!entry.path.startsWith(`${STAGING_ROOT}/`) || now - entry.modifiedTimeSeconds < ORPHAN_SECONDS) return false;
    const base = entry.path
      .slice(STAGING_ROOT.length + 1)
      .split("/")
      .slice(0, 5)
      .join("/");
    return !pending.has(base);
  });
  if (orphans.length > 0) await bucket.delete(orphans.map((entry) => entry.path));
  return completed;
}

/** The zip and sibling staged in `folder`; undefined when they are gone (the publish completed). */
export async function readStaged(
  bucket: ObjectBucket,
  folder: string,
): Promise<{ zip: Buffer; weightJson?: string } | undefined> {
  const [zip, sibling] = await Promise.all([bucket.get(`${folder}/model.zip`), bucket.get(`${folder}/model.json`)]);
  if (zip === undefined) return undefined;
  return sibling === undefined ? { zip } : { zip, weightJson: sibling.toString("utf8") };
}
