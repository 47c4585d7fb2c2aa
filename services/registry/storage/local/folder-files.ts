// File-system reads and writes the local folder storage needs, with a missing file or folder as a value.
import { readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporarySuffix } from "./atomic-publish.js";

const isMissing = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
};

/** A file's modification time and size; undefined when it does not exist. */
export async function statOrUndefined(path: string): Promise<{ mtimeMs: number; size: number } | undefined> {
  try {
    const s = await stat(path);
    return { mtimeMs: s.mtimeMs, size: s.size };
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** A file's bytes; undefined when it does not exist. */
export async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** A folder's visible entries (hidden names left out), by name; undefined when the folder does not exist. */
export async function entriesOf(path: string): Promise<Array<{ name: string; directory: boolean }> | undefined> {
  try {
    return (await readdir(path, { withFileTypes: true }))
      .filter((e) => !e.name.startsWith("."))
      .map((e) => ({ name: e.name, directory: e.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** The visible sub-folders of a folder, by name; none when it does not exist. */
export async function listDirectories(path: string): Promise<string[]> {
  return ((await entriesOf(path)) ?? []).filter((e) => e.directory).map((e) => e.name);
}

/** Writes a small file next to its destination and renames it into place. */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = join(path, "..", `.${path.slice(path.lastIndexOf("/") + 1)}.tmp-${temporarySuffix()}`);
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
