// store-format.json of a local model folder (MODEL_PATH): checked at start, written when missing.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { STORE_FORMAT_FILE, storeFormatOf, storeFormatText } from "../store-format.js";

/**
 * Checks the folder's store format (FailedPreconditionError for a newer or unreadable one) and, with
 * `stamp` (default), writes the current format into a folder without one: an older store is read
 * unchanged, its files untouched. Returns the format found (0: none).
 */
export async function checkLocalStoreFormat(folder: string, options: { stamp?: boolean } = {}): Promise<number> {
  const path = join(folder, STORE_FORMAT_FILE);
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  const format = storeFormatOf(text, folder);
  if (text === undefined && options.stamp !== false) {
    await mkdir(folder, { recursive: true });
    // Written whole (rename) so a reader never sees half a file.
    await writeFile(`${path}.tmp`, storeFormatText());
    await rename(`${path}.tmp`, path);
  }
  return format;
}
