// The checks of zip-reader.ts run on an archive in a file, with positioned reads of its end record and
// central directory only: an upload spooled to disk is refused (entry count, names, links, sizes,
// compression ratios) before any of it is read into memory. A small upload held in memory gets the same
// checks on its bytes.
import { open } from "node:fs/promises";
import { InvalidInputError } from "../domain/errors.js";
import { type CentralEntry, readCentralDirectory, type ZipLimits } from "./zip-reader.js";

const END_SIGNATURE = 0x06054b50;
/** The end record (22 bytes) and the longest comment it may carry. */
const END_RECORD_SEARCH_BYTES = 22 + 0xffff;

/** Positioned reads of an archive of `archiveBytes` bytes, in a file or in memory. */
type ReadAt = (offset: number, length: number) => Promise<Buffer>;

/** The checked central directory of the ZIP archive at `path`; InvalidInputError naming `field` otherwise. */
export async function checkZipFile(path: string, field: string, limits: ZipLimits): Promise<CentralEntry[]> {
  const file = await open(path, "r");
  try {
    const readAt: ReadAt = async (offset, length) => {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await file.read(buf, 0, length, offset);
      return buf.subarray(0, bytesRead);
    };
    return await checkCentralDirectory((await file.stat()).size, readAt, field, limits);
  } finally {
    await file.close();
  }
}

/** The same checks on an archive held in memory (a small upload, archive-stream.ts). */
export function checkZipBytes(bytes: Buffer, field: string, limits: ZipLimits): Promise<CentralEntry[]> {
  return checkCentralDirectory(bytes.length, async (offset, length) => bytes.subarray(offset, offset + length), field, limits);
}

async function checkCentralDirectory(
  archiveBytes: number,
  readAt: ReadAt,
  field: string,
  limits: ZipLimits,
): Promise<CentralEntry[]> {
  const tailStart = Math.max(0, archiveBytes - END_RECORD_SEARCH_BYTES);
  const tail = await readAt(tailStart, archiveBytes - tailStart);
  let endOffset = -1;
  for (let p = tail.length - 22; p >= 0; p--) {
    if (tail.readUInt32LE(p) === END_SIGNATURE) {
      endOffset = p;
      break;
    }
  }
  if (endOffset < 0) throw new InvalidInputError(field, "not a ZIP archive (no end of central directory record)");
  const directoryOffset = tail.readUInt32LE(endOffset + 16);
  if (directoryOffset > tailStart + endOffset)
    throw new InvalidInputError(field, "corrupt end of central directory record (directory offset)");
  // From the directory to the end: the directory entries, then the end record the reader finds again.
  const fromDirectory = await readAt(directoryOffset, archiveBytes - directoryOffset);
  try {
    return readCentralDirectory(fromDirectory, field, limits, directoryOffset, archiveBytes);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(field, `corrupt ZIP data (${(error as Error).message})`);
  }
}
