// Every file a reader may open is replaced whole: written under a temporary name in the same folder, then
// renamed over the old one (rename is atomic within a file system), so a reader sees the old or the new
// value, never an empty or half-written one (Kepler drops a zone for the sample when a file does not parse).
// The temporary name starts with a dot: in a hwmon folder a name like `power1_input.tmp` would be taken
// for a sensor file by Kepler's hwmon reader, which only matches names that start with `power<N>_`.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Replaces `dir/name` with `text` atomically (see the file comment). */
export function writeFileAtomic(dir: string, name: string, text: string): void {
  const temporary = join(dir, `.${name}.tmp`);
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, join(dir, name));
}
