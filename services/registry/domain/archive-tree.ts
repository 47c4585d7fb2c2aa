// A zip's entries read as a folder tree, in memory: what an imported pipeline zip holds, looked at
// folder by folder without unpacking it anywhere. Names were checked by readZip (no zip-slip, no
// absolute paths, no links); folders exist because files are in them.
import type { ZipEntry } from "../../models/index.js";

/** One visible entry of a folder. */
export interface TreeEntry {
  name: string;
  directory: boolean;
}

/** The entries of a zip as folders and files (see the file comment). */
export class ArchiveTree {
  private readonly files = new Map<string, Uint8Array>();

  constructor(entries: readonly ZipEntry[]) {
    for (const entry of entries) this.files.set(entry.name, entry.data);
  }

  /** The visible entries directly in `folder` ("" for the top; hidden names left out), by name. */
  entriesOf(folder: string): TreeEntry[] {
    const prefix = folder === "" ? "" : `${folder}/`;
    const found = new Map<string, boolean>();
    for (const path of this.files.keys()) {
      if (!path.startsWith(prefix)) continue;
      const rest = path.slice(prefix.length);
      const slash = rest.indexOf("/");
      const name = slash === -1 ? rest : rest.slice(0, slash);
      if (name === "" || name.startsWith(".")) continue;
      found.set(name, found.get(name) === true || slash !== -1);
    }
    return [...found.entries()].map(([name, directory]) => ({ name, directory })).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** A file's bytes; undefined when there is no such file. */
  read(path: string): Uint8Array | undefined {
    return this.files.get(path);
  }
}

/** `folder/name`, or `name` at the top. */
export function childPath(folder: string, name: string): string {
  return folder === "" ? name : `${folder}/${name}`;
}
