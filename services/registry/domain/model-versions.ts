// Earlier versions of each model (EP-003: keep the last N, roll back to the previous one). They are kept
// where readers of the kepler-model-db layout never look, in a hidden folder of the pipeline:
// `<pipeline>/.versions/<source>/<OutputType>/<FeatureGroup>/<model>/<version>.zip` and `<version>.json`
// (the weight sibling). They are written as pipeline files, which every storage writes whole, so the
// local folder and S3 keep them alike; listings skip hidden folders, so they are never served or exported.
import { createHash } from "node:crypto";
import type { ModelLocation } from "../../models/index.js";
import type { ModelStorage, StoredModelBytes } from "../storage/model-storage.js";

/** How many versions of a model are kept by default, the serving one included. */
export const DEFAULT_KEPT_VERSIONS = 3;
const VERSIONS_FOLDER = ".versions";

/** A model archive's version: the first 12 hex digits of its zip's SHA-256 (what estimators and exporters report). */
export function archiveVersionOf(zip: Uint8Array): string {
  return createHash("sha256").update(zip).digest("hex").slice(0, 12);
}

/** A kept version's id: when it was published (ms, zero-padded so ids sort by time) and its archive version. */
function keptVersionIdOf(zip: Uint8Array, publishedTimeSeconds: number): string {
  return `${String(Math.round(publishedTimeSeconds * 1000)).padStart(14, "0")}-${archiveVersionOf(zip)}`;
}

function folderOf(location: ModelLocation): string {
  return `${VERSIONS_FOLDER}/${location.energySource}/${location.outputType}/${location.featureGroup}/${location.modelName}`;
}

/** The kept versions of a model, oldest first. */
export async function listKeptVersions(storage: ModelStorage, location: ModelLocation): Promise<string[]> {
  const names = (await storage.listPipelineFiles(location.pipelineName, folderOf(location))) ?? [];
  return names
    .filter((name) => name.endsWith(".zip"))
    .map((name) => name.slice(0, -4))
    .sort();
}

/** Every file of a model's kept versions (zips and weight siblings), as paths relative to its pipeline. */
export async function keptVersionFiles(storage: ModelStorage, location: ModelLocation): Promise<string[]> {
  const folder = folderOf(location);
  const names = (await storage.listPipelineFiles(location.pipelineName, folder)) ?? [];
  return names.sort().map((name) => `${folder}/${name}`);
}

/** A kept version's bytes; undefined when there is no such version. */
export async function readKeptVersion(
  storage: ModelStorage,
  location: ModelLocation,
  versionId: string,
): Promise<StoredModelBytes | undefined> {
  const base = `${folderOf(location)}/${versionId}`;
  const zip = await storage.readPipelineFile(location.pipelineName, `${base}.zip`);
  if (zip === undefined) return undefined;
  const sibling = await storage.readPipelineFile(location.pipelineName, `${base}.json`);
  return sibling === undefined ? { zip } : { zip, weightJson: sibling.toString("utf8") };
}

/** Removes a kept version (the zip last: a version exists while its zip does); a missing one is no error. */
export async function removeKeptVersion(storage: ModelStorage, location: ModelLocation, versionId: string): Promise<void> {
  const base = `${folderOf(location)}/${versionId}`;
  await storage.removePipelineFile(location.pipelineName, `${base}.json`);
  await storage.removePipelineFile(location.pipelineName, `${base}.zip`);
}

/**
 * Keeps a model's bytes as a version (the weight sibling first, then the zip), then removes the oldest
 * versions beyond `keptVersions - 1` (the serving version counts as one). Returns the versions removed.
 */
async function keepVersion(
  storage: ModelStorage,
  location: ModelLocation,
  versionId: string,
  bytes: StoredModelBytes,
  keptVersions: number,
): Promise<string[]> {
  const base = `${folderOf(location)}/${versionId}`;
  if (keptVersions > 1) {
    if (bytes.weightJson !== undefined) await storage.writePipelineFile(location.pipelineName, `${base}.json`, bytes.weightJson);
    await storage.writePipelineFile(location.pipelineName, `${base}.zip`, bytes.zip);
  }
  const kept = await listKeptVersions(storage, location);
  const surplus = kept.slice(0, Math.max(0, kept.length - (keptVersions - 1)));
  for (const old of surplus) await removeKeptVersion(storage, location, old);
  return surplus;
}

/**
 * Keeps the model serving now at `location` (published at `publishedTimeSeconds`) before it is replaced.
 * Its id sorts after every kept one even when the clock says otherwise (two publishes in one millisecond).
 */
export async function keepServingVersion(
  storage: ModelStorage,
  location: ModelLocation,
  publishedTimeSeconds: number,
  keptVersions: number,
): Promise<void> {
  const bytes = await storage.readModel(location);
  if (bytes === undefined) return;
  const newest = (await listKeptVersions(storage, location)).at(-1);
  const newestMs = newest === undefined ? 0 : Number(newest.slice(0, newest.indexOf("-")));
  const timeSeconds = Math.max(publishedTimeSeconds, (newestMs + 1) / 1000);
  await keepVersion(storage, location, keptVersionIdOf(bytes.zip, timeSeconds), bytes, keptVersions);
}
