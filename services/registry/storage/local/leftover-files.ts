// Temporary files a killed write left behind (writeFileAtomically's `.<name>.tmp-<suffix>` beside a
// pipeline file, a report file or a profile): nothing reads them, so they are removed when the folder is
// opened. Only those older than a few minutes: another registry sharing the folder may be writing one now.
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";

const LEFTOVER = /^\..+\.tmp-[A-Za-z0-9_]+$/;

/** How old a temporary file must be before it counts as a leftover, in ms. */
export const LEFTOVER_AGE_MS = 10 * 60 * 1000;

/** Removes the leftover temporary files directly in `folder`; returns the paths removed. */
export async function removeLeftoverFiles(folder: string, nowMs = Date.now()): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const removed: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !LEFTOVER.test(entry.name)) continue;
    const path = join(folder, entry.name);
    const modifiedMs = (await stat(path).catch(() => undefined))?.mtimeMs;
    if (modifiedMs === undefined || nowMs - modifiedMs < LEFTOVER_AGE_MS) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
