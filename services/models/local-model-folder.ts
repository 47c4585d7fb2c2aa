// The local MODEL_PATH folder: atomic publishing of model archives and the trainers' checkpoints.
// Readers never see a half-written model: everything is written aside (dot-prefixed temporary names in
// the same folder, so the rename stays on one file system) and then renamed into place.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { archiveZip, type ModelArchive } from "./model-archive.js";
import { type Checkpoint, parseCheckpoint, type SerializedCheckpoint } from "./checkpoint-file.js";
import { checkpointPath, type ModelGroup, modelFolderPath, modelZipPath } from "./model-location.js";

/** Where a published model ended up. */
export interface PublishedModel {
  folderPath: string;
  zipPath: string;
}

// Writes a file next to its destination, then renames it over the destination. The folder is created
// when missing (a write finds it so), not checked before every write: a run writes hundreds of checkpoints.
async function writeFileAtomically(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString("hex")}`);
  try {
    try {
      await writeFile(temporary, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await mkdir(dirname(path), { recursive: true });
      await writeFile(temporary, data);
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Publishes an archive as `<model_name>/` plus `<model_name>.zip` (with weight.json inside both).
 * The folder is built aside and renamed into place; a previous version is renamed away first and
 * removed after, so at every moment the path holds either a complete old or a complete new model.
 */
export async function publishModelArchive(modelPath: string, archive: ModelArchive): Promise<PublishedModel> {
  const folderPath = modelFolderPath(modelPath, archive.location);
  const zipPath = modelZipPath(modelPath, archive.location);
  const groupPath = dirname(folderPath);
  await mkdir(groupPath, { recursive: true });
  const staging = await mkdtemp(join(groupPath, `.${archive.location.modelName}.tmp-`));
  let previous: string | undefined;
  try {
    for (const file of archive.files) await writeFile(join(staging, file.name), file.data);
    previous = join(groupPath, `.${archive.location.modelName}.old-${randomBytes(6).toString("hex")}`);
    try {
      await rename(folderPath, previous);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      previous = undefined;
    }
    await rename(staging, folderPath);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  if (previous !== undefined) await rm(previous, { recursive: true, force: true });
  await writeFileAtomically(zipPath, archiveZip(archive));
  return { folderPath, zipPath };
}

/** Reads a checkpoint, or undefined when there is none. */
export async function readCheckpoint(
  modelPath: string,
  group: ModelGroup,
  trainerName: string,
  component: string,
  nodeType: number,
): Promise<Checkpoint | undefined> {
  const path = checkpointPath(modelPath, group, trainerName, component, nodeType);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return parseCheckpoint(JSON.parse(text), path);
}

/** Writes a checkpoint atomically, given as an object or serialised already (e.g. on the fit's thread). */
export async function writeCheckpoint(
  modelPath: string,
  group: ModelGroup,
  checkpoint: Checkpoint | SerializedCheckpoint,
): Promise<string> {
  const path = checkpointPath(modelPath, group, checkpoint.trainer, checkpoint.component, checkpoint.node_type);
  await writeFileAtomically(path, "text" in checkpoint ? checkpoint.text : JSON.stringify(checkpoint));
  return path;
}
