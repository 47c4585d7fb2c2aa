// A secret file (bearer tokens) readable by other users of the host leaks every token in it: warn once
// at start, naming the file, its mode and the fix. Only a warning: a mounted Kubernetes Secret is
// often 0644 inside a pod where no other user exists.
import { statSync } from "node:fs";
import type { Logger } from "../observe/logger.js";

/** The file's permission bits when group or others may read it, else undefined (also when it cannot be read). */
export function readableByOthers(path: string): number | undefined {
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch {
    return undefined;
  }
  return (mode & 0o044) !== 0 ? mode : undefined;
}

/** Logs a warning when `path` (the file of `flag`) is readable by group or others. */
export function warnIfReadableByOthers(path: string, flag: string, logger: Pick<Logger, "warn">): void {
  const mode = readableByOthers(path);
  if (mode === undefined) return;
  logger.warn({ file: path, mode: `0${mode.toString(8)}`, flag }, "secret file readable by group or others; chmod 600 it");
}
