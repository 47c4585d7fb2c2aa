// Crash-safe replacement of one model's files in a group folder: `<model>.zip`, the kepler-model-db
// weight sibling `<model>.json`, and the unpacked folder `<model>/`.
//
// A publish is journaled: everything is written into a staging folder `.<model>.publish-<id>/` beside
// the destination (same file system, so renames are atomic), then a COMMITTED marker is written, then
// the files are renamed into place. Recovery at start rolls a committed publish forward and deletes an
// uncommitted one, so a process killed at any point leaves either the complete previous model or the
// complete new one. A marker that cannot be read (empty or truncated by a crash while it was written)
// means nothing was applied yet when the staging folder is still whole, so that publish is discarded;
// if some files were already moved, it is completed. Recovery never throws for one journal. The zip, which the registry serves from, is replaced by a single rename: a reader
// that opened the old zip keeps reading the old file.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, rmdir, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ModelFiles, WriteStep } from "../model-storage.js";

const COMMITTED = "COMMITTED";
const STAGED_ZIP = "model.zip";
const STAGED_WEIGHTS = "weight-sibling.json";
const STAGED_FOLDER = "folder";
const JOURNAL = /^\.(.+)\.(publish|old|tmp)-([A-Za-z0-9_]+)$/;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}

/** What the COMMITTED marker says: absent, readable (with whether a weight sibling is written), or unreadable. */
type Marker = { state: "absent" } | { state: "valid"; weights: boolean } | { state: "unreadable"; reason: string };

async function readMarker(staging: string): Promise<Marker> {
  let text: string;
  try {
    text = await readFile(join(staging, COMMITTED), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { state: "absent" };
    return { state: "unreadable", reason: code ?? (error as Error).message };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && typeof (parsed as { weights?: unknown }).weights === "boolean")
      return { state: "valid", weights: (parsed as { weights: boolean }).weights };
    return { state: "unreadable", reason: `unexpected content ${JSON.stringify(text.slice(0, 40))}` };
  } catch {
    return { state: "unreadable", reason: text === "" ? "empty" : `not JSON ${JSON.stringify(text.slice(0, 40))}` };
  }
}

// Writes and fsyncs, so a committed journal survives a machine crash too, not only a killed process.
async function writeDurably(path: string, data: Uint8Array | string): Promise<void> {
  const handle = await open(path, "w");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// Entry names come from archives: keep them inside the folder.
function safeEntryPath(folder: string, name: string): string {
  if (name.startsWith("/") || name.split("/").some((part) => part === ".." || part === "")) {
    throw new Error(`unsafe archive entry name "${name}"`);
  }
  return join(folder, name);
}

/** Publishes one model's files atomically (see the file comment). */
export async function writeModelFiles(
  groupPath: string,
  modelName: string,
  files: ModelFiles,
  onStep: (step: WriteStep) => void | Promise<void> = () => {},
): Promise<void> {
  // The group folder is created when missing (mkdtemp finds it so), not checked before every publish.
  const prefix = join(groupPath, `.${modelName}.publish-`);
  const staging = await mkdtemp(prefix).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    await mkdir(groupPath, { recursive: true });
    return mkdtemp(prefix);
  });
  try {
    const folder = join(staging, STAGED_FOLDER);
    await mkdir(folder);
    const paths = files.folderEntries.map((entry) => safeEntryPath(folder, entry.name));
    for (const parent of new Set(paths.map((path) => dirname(path))))
      if (parent !== folder) await mkdir(parent, { recursive: true });
    // The staged files are written and synced side by side (the file system batches the syncs); all of
    // them are durable before the marker is written.
    await Promise.all([
      writeDurably(join(staging, STAGED_ZIP), files.zip),
      ...(files.weightJson === undefined ? [] : [writeDurably(join(staging, STAGED_WEIGHTS), files.weightJson)]),
      ...files.folderEntries.map((entry, index) => writeDurably(paths[index]!, entry.data)),
    ]);
    await onStep("staged");
    await writeDurably(join(staging, COMMITTED), JSON.stringify({ weights: files.weightJson !== undefined }));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  await onStep("committed");
  await applyStaged(groupPath, modelName, staging, files.weightJson !== undefined, onStep);
  await onStep("done");
}

// Moves a publish just committed into place. What is staged is known, so nothing is checked first, and
// the folder swap runs beside the zip's and the weight sibling's renames: a crash leaves some subset
// applied, which recovery (applyCommitted, checking every step) completes.
async function applyStaged(
  groupPath: string,
  modelName: string,
  staging: string,
  weights: boolean,
  onStep: (step: WriteStep) => void | Promise<void>,
): Promise<void> {
  const target = join(groupPath, modelName);
  const previous = join(groupPath, `.${modelName}.old-${staging.slice(staging.lastIndexOf("-") + 1)}`);
  let replaced = true;
  const swapFolder = async () => {
    try {
      await rename(target, previous);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      replaced = false;
    }
    await onStep("replacing");
    await rename(join(staging, STAGED_FOLDER), target);
  };
  await Promise.all([
    swapFolder(),
    rename(join(staging, STAGED_ZIP), `${target}.zip`),
    weights ? rename(join(staging, STAGED_WEIGHTS), `${target}.json`) : rm(`${target}.json`, { force: true }),
  ]);
  // What is left: the previous folder, if there was one, and the staging folder holding only its marker.
  const removeStaging = async () => {
    await unlink(join(staging, COMMITTED));
    await rmdir(staging).catch(() => rm(staging, { recursive: true, force: true }));
  };
  await Promise.all([replaced ? rm(previous, { recursive: true, force: true }) : undefined, removeStaging()]);
}

// Moves a committed staging folder's files into place at recovery. Every step checks what is still
// there, so it can run again after being interrupted at any point. `weights` undefined (marker
// unreadable) leaves the weight sibling as it is unless a staged one is there.
async function applyCommitted(
  groupPath: string,
  modelName: string,
  staging: string,
  weights: boolean | undefined,
): Promise<void> {
  const target = join(groupPath, modelName);
  const suffix = staging.slice(staging.lastIndexOf("-") + 1);
  const previous = join(groupPath, `.${modelName}.old-${suffix}`);
  const stagedFolder = join(staging, STAGED_FOLDER);
  if (await exists(stagedFolder)) {
    if (await exists(target)) await rename(target, previous);
    await rename(stagedFolder, target);
  }
  const stagedZip = join(staging, STAGED_ZIP);
  if (await exists(stagedZip)) await rename(stagedZip, `${target}.zip`);
  const stagedWeights = join(staging, STAGED_WEIGHTS);
  if (await exists(stagedWeights)) await rename(stagedWeights, `${target}.json`);
  else if (weights === false) await rm(`${target}.json`, { force: true });
  await rm(previous, { recursive: true, force: true });
  await rm(staging, { recursive: true, force: true });
}

// Finishes or undoes one interrupted publish; returns what it did.
async function recoverPublish(groupPath: string, modelName: string, staging: string): Promise<string> {
  const marker = await readMarker(staging);
  if (marker.state === "valid") {
    await applyCommitted(groupPath, modelName, staging, marker.weights);
    return `completed the committed publish of ${modelName}`;
  }
  const untouched = (await exists(join(staging, STAGED_FOLDER))) && (await exists(join(staging, STAGED_ZIP)));
  if (marker.state === "absent" || untouched) {
    await rm(staging, { recursive: true, force: true });
    return marker.state === "absent"
      ? `discarded the unfinished publish of ${modelName}`
      : `discarded the publish of ${modelName} whose COMMITTED marker is unreadable (${marker.reason}); nothing had been applied`;
  }
  await applyCommitted(groupPath, modelName, staging, undefined);
  return `completed the partly applied publish of ${modelName} whose COMMITTED marker is unreadable (${marker.reason})`;
}

/**
 * Finishes or undoes interrupted publishes in a group folder: committed journals are applied,
 * uncommitted ones removed, and a model folder renamed aside (`.<model>.old-*`, ours or the trainer's
 * services/models publish) is put back when nothing replaced it. Any journal state is tolerated: a
 * step that fails is reported and skipped, never thrown. Returns what it did, for the log.
 */
export async function recoverGroup(groupPath: string): Promise<string[]> {
  const actions: string[] = [];
  let names: string[];
  try {
    names = await readdir(groupPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return actions;
    return [`could not list ${groupPath}: ${(error as Error).message}`];
  }
  const journals = names.map((name) => ({ name, match: JOURNAL.exec(name) })).filter((j) => j.match !== null);
  for (const { name, match } of journals) {
    if (match?.[2] !== "publish") continue;
    try {
      actions.push(await recoverPublish(groupPath, match[1] as string, join(groupPath, name)));
    } catch (error) {
      actions.push(`could not recover ${name}: ${(error as Error).message}`);
    }
  }
  for (const { name, match } of journals) {
    if (match === null || match[2] === "publish") continue;
    const path = join(groupPath, name);
    try {
      if (!(await exists(path))) continue;
      const target = join(groupPath, match[1] as string);
      if (match[2] === "old" && !(await exists(target))) {
        await rename(path, target);
        actions.push(`restored ${match[1]} from an interrupted replacement`);
      } else {
        await rm(path, { recursive: true, force: true });
        actions.push(`removed the leftover ${name}`);
      }
    } catch (error) {
      actions.push(`could not clean up ${name}: ${(error as Error).message}`);
    }
  }
  return actions;
}

/** A unique suffix for temporary names. */
export function temporarySuffix(): string {
  return randomBytes(6).toString("hex");
}
