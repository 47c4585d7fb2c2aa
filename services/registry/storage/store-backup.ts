// A whole model store as one backup zip, and back: every model (its zip and weight sibling, byte for
// byte), every pipeline file and every model's kept versions (`.versions/`, for `models rollback`; stored
// as pipeline files, so a restore writes them back as any pipeline file), through the ModelStorage seam, so a local folder and an S3 store back
// up and restore alike. `backup-manifest.json` lists each file with its SHA-256 and the store format;
// a restore checks the whole backup before writing anything, writes into an empty store, then reads
// every file back and compares (kepler-model models backup / restore, docs/operations.md).
import { createHash } from "node:crypto";
import { FailedPreconditionError, InvalidInputError } from "../../domain/errors.js";
import { buildInfo } from "../../domain/build-info.js";
import {
  isOutputTypeName,
  type ModelLocation,
  WEIGHT_FILE,
  type ZipEntry,
  createZip,
  namedWeightsText,
  readZip,
} from "../../models/index.js";
import type { ModelStorage } from "./model-storage.js";
import { modelPathOf } from "./model-layout.js";
import { keptVersionFiles } from "../domain/model-versions.js";
import { STORE_FORMAT_VERSION } from "./store-format.js";

const BACKUP_MANIFEST = "backup-manifest.json";
const BACKUP_KIND = "kepler-model-store-backup";

interface BackedUpFile {
  /** The entry's name in the backup zip. */
  entry: string;
  sha256: string;
  bytes: number;
}

/** backup-manifest.json. */
export interface BackupManifest {
  kind: typeof BACKUP_KIND;
  store_format: number;
  written_by: string;
  created: string;
  models: Array<{ location: ModelLocation; zip: BackedUpFile; weight?: BackedUpFile }>;
  pipeline_files: Array<{ pipeline: string; path: string; file: BackedUpFile }>;
}

/** What a backup or restore covered. */
export interface BackupSummary {
  models: number;
  pipelineFiles: number;
  bytes: number;
}

const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

/** Every model and pipeline file of `storage` as a backup zip, with its manifest. */
export async function backupStore(storage: ModelStorage): Promise<{ zip: Buffer; summary: BackupSummary }> {
  const listing = await storage.list();
  const entries: ZipEntry[] = [];
  const add = (entry: string, data: Uint8Array): BackedUpFile => {
    entries.push({ name: entry, data });
    return { entry, sha256: sha256(data), bytes: data.byteLength };
  };
  const manifest: BackupManifest = {
    kind: BACKUP_KIND,
    store_format: STORE_FORMAT_VERSION,
    written_by: buildInfo().version,
    created: new Date().toISOString(),
    models: [],
    pipeline_files: [],
  };
  for (const { location } of listing.models) {
    const stored = await storage.readModel(location);
    if (stored === undefined) continue; // removed since the listing
    const path = modelPathOf(location);
    const zip = add(`models/${path}.zip`, stored.zip);
    const weight = stored.weightJson === undefined ? undefined : add(`models/${path}.json`, Buffer.from(stored.weightJson));
    manifest.models.push({ location, zip, ...(weight === undefined ? {} : { weight }) });
  }
  // The model tables (<source>_<OutputType>_model_metadata.csv) are left out of listings (derived from the
  // models, rewritten on each publish); they are copied too, so a restored store is the whole store.
  const tables = new Set(
    listing.models.map(({ location: l }) => `${l.pipelineName}\n${l.energySource}_${l.outputType}_model_metadata.csv`),
  );
  // Kept versions live in a hidden folder that listings skip: asked for per model.
  const versions = [];
  for (const { location } of listing.models)
    for (const path of await keptVersionFiles(storage, location)) versions.push({ pipelineName: location.pipelineName, path });
  const files = [
    ...listing.pipelineFiles,
    ...[...tables].map((key) => ({ pipelineName: key.split("\n")[0]!, path: key.split("\n")[1]! })),
    ...versions,
  ];
  for (const { pipelineName, path } of files) {
    const data = await storage.readPipelineFile(pipelineName, path);
    if (data === undefined) continue;
    manifest.pipeline_files.push({ pipeline: pipelineName, path, file: add(`pipelines/${pipelineName}/${path}`, data) });
  }
  entries.unshift({ name: BACKUP_MANIFEST, data: Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`) });
  return { zip: createZip(entries), summary: summaryOf(manifest) };
}

function summaryOf(manifest: BackupManifest): BackupSummary {
  const files = [
    ...manifest.models.flatMap((m) => [m.zip, ...(m.weight ? [m.weight] : [])]),
    ...manifest.pipeline_files.map((p) => p.file),
  ];
  return {
    models: manifest.models.length,
    pipelineFiles: manifest.pipeline_files.length,
    bytes: files.reduce((sum, f) => sum + f.bytes, 0),
  };
}

/** The backup's manifest and files, every file checked against its SHA-256 (InvalidInputError naming `field`). */
function openBackup(zip: Uint8Array, field: string): { manifest: BackupManifest; file(f: BackedUpFile): Buffer } {
  const entries = new Map(
    readZip(zip, field, { maxEntries: 1_000_000, maxUncompressedBytes: 64 * 1024 ** 3, maxCompressionRatio: 10_000 }).map((e) => [
      e.name,
      e.data,
    ]),
  );
  const manifestData = entries.get(BACKUP_MANIFEST);
  if (manifestData === undefined) throw new InvalidInputError(field, `not a model-store backup: no ${BACKUP_MANIFEST}`);
  const manifest = JSON.parse(Buffer.from(manifestData).toString("utf8")) as BackupManifest;
  if (manifest.kind !== BACKUP_KIND) throw new InvalidInputError(field, `${BACKUP_MANIFEST}: kind is not "${BACKUP_KIND}"`);
  if (!(manifest.store_format <= STORE_FORMAT_VERSION))
    throw new FailedPreconditionError(
      `${field}: a backup of a format ${manifest.store_format} store (kepler-model ${manifest.written_by}), newer than ` +
        `kepler-model ${buildInfo().version} restores (up to ${STORE_FORMAT_VERSION})`,
    );
  const listed = [
    ...manifest.models.flatMap((m) => [m.zip, ...(m.weight ? [m.weight] : [])]),
    ...manifest.pipeline_files.map((p) => p.file),
  ];
  for (const f of listed) {
    const data = entries.get(f.entry);
    if (data === undefined) throw new InvalidInputError(field, `${f.entry}: listed in ${BACKUP_MANIFEST} but missing`);
    if (sha256(data) !== f.sha256)
      throw new InvalidInputError(field, `${f.entry}: SHA-256 differs from ${BACKUP_MANIFEST} (damaged backup)`);
  }
  const extra = [...entries.keys()].filter((name) => name !== BACKUP_MANIFEST && !listed.some((f) => f.entry === name));
  if (extra.length > 0) throw new InvalidInputError(field, `${extra[0]}: not listed in ${BACKUP_MANIFEST}`);
  return { manifest, file: (f) => Buffer.from(entries.get(f.entry)!) };
}

/**
 * Restores a backup into an empty `storage`: checks the whole backup first, writes pipeline files then
 * models (a model's zip last, as a publish does), then reads every file back and compares its SHA-256.
 */
export async function restoreStore(zip: Uint8Array, storage: ModelStorage, field: string): Promise<BackupSummary> {
  const backup = openBackup(zip, field);
  const existing = await storage.list();
  if (existing.models.length > 0 || existing.pipelineNames.length > 0)
    throw new FailedPreconditionError(
      `${storage.name} is not empty (${existing.pipelineNames.length} pipelines, ${existing.models.length} models): restore into an empty store`,
    );
  for (const { pipeline, path, file } of backup.manifest.pipeline_files)
    await storage.writePipelineFile(pipeline, path, backup.file(file));
  for (const { location, zip: zipFile, weight } of backup.manifest.models) {
    const archive = backup.file(zipFile);
    const weightJson = weight === undefined ? undefined : backup.file(weight).toString("utf8");
    // The unpacked folder as a publish writes it: the zip's entries, weight.json naming its model.
    const folderEntries = readZip(archive, `${field}: ${zipFile.entry}`).filter((e) => e.name !== WEIGHT_FILE);
    if (weightJson !== undefined)
      folderEntries.push({ name: WEIGHT_FILE, data: Buffer.from(namedWeightsText(weightJson, location.modelName)) });
    await storage.writeModel(checkedLocation(location, field), { zip: archive, weightJson, folderEntries });
  }
  await verifyRestore(backup.manifest, storage);
  return summaryOf(backup.manifest);
}

function checkedLocation(location: ModelLocation, field: string): ModelLocation {
  const parts = [location.pipelineName, location.energySource, location.featureGroup, location.modelName];
  if (
    !isOutputTypeName(location.outputType) ||
    parts.some((p) => typeof p !== "string" || p === "" || p.includes("/") || p.startsWith("."))
  )
    throw new InvalidInputError(field, `${BACKUP_MANIFEST}: bad model location ${JSON.stringify(location)}`);
  return location;
}

async function verifyRestore(manifest: BackupManifest, storage: ModelStorage): Promise<void> {
  for (const { location, zip, weight } of manifest.models) {
    const stored = await storage.readModel(location);
    if (
      stored === undefined ||
      sha256(stored.zip) !== zip.sha256 ||
      (weight !== undefined && sha256(stored.weightJson ?? "") !== weight.sha256)
    )
      throw new FailedPreconditionError(`restore not verified: ${modelPathOf(location)} reads back different from the backup`);
  }
  for (const { pipeline, path, file } of manifest.pipeline_files) {
    const data = await storage.readPipelineFile(pipeline, path);
    if (data === undefined || sha256(data) !== file.sha256)
      throw new FailedPreconditionError(`restore not verified: ${pipeline}/${path} reads back different from the backup`);
  }
}
