// Writes a command's output file from text pieces as they are produced, waiting whenever the disk falls
// behind, so a table of any size is never held as one string.
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** Writes `pieces` to `path` in order (the file is replaced); resolves once every byte is written. */
export async function writeTextFile(path: string, pieces: Iterable<string> | AsyncIterable<string>): Promise<void> {
  await pipeline(Readable.from(pieces), createWriteStream(path));
}

/** Writes `value` to `stream` as indented JSON, the `--json` output of every command. */
export function writeJson(stream: NodeJS.WritableStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
