// Zips a folder tree (names relative to it, `/`-separated, hidden files left out), as a client does
// before streaming a pipeline to ImportPipeline. Symbolic links are refused: the registry would
// refuse them inside the zip anyway, and following one could leak a file from outside the folder.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { InvalidInputError } from "../domain/errors.js";
import { createZip, type ZipEntry } from "./zip-writer.js";

/** The zip of every regular file under `folder`, in name order. */
export async function zipFolderTree(folder: string): Promise<Buffer> {
  const files: ZipEntry[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const name of (await readdir(path)).sort()) {
      if (name.startsWith(".")) continue;
      const full = join(path, name);
      const info = await lstat(full);
      if (info.isSymbolicLink()) throw new InvalidInputError(full, "is a symbolic link; zip the files it points to instead");
      if (info.isDirectory()) await walk(full);
      else if (info.isFile()) files.push({ name: relative(folder, full).split(sep).join("/"), data: await readFile(full) });
    }
  };
  await walk(folder);
  return createZip(files);
}
