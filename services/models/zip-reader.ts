// Reads the archives zip-writer.ts writes, and ordinary ZIPs such as the reference's
// shutil.make_archive output (STORE or DEFLATE entries, no ZIP64, no encryption).
//
// Archives come from clients, so everything is checked from the central directory BEFORE anything is
// inflated: entry count, names (no zip-slip, absolute or drive paths), symlink entries, declared sizes
// and compression ratios (zip bombs). Inflation is capped at the declared size, so a header that lies
// cannot expand further. Any malformed data is an InvalidInputError naming the field, never a crash.
import { crc32, inflateRawSync } from "node:zlib";
import { InvalidInputError } from "../domain/errors.js";
import type { ZipEntry } from "./zip-writer.js";

const END_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const UNIX_HOST = 3;
const FILE_TYPE_MASK = 0o170000;
const SYMLINK_TYPE = 0o120000;
const MIB = 1024 * 1024;
/** Entries smaller than this are not held to the compression ratio (tiny files of zeros are legitimate). */
const RATIO_FLOOR_BYTES = 64 * 1024;

/** Bounds an archive must respect; the registry's config sets them. */
export interface ZipLimits {
  /** Most entries (files and folders). */
  maxEntries: number;
  /** Most uncompressed bytes, of one entry and of all entries together. */
  maxUncompressedBytes: number;
  /** Highest uncompressed / compressed size, per entry over 64 KiB and for the whole archive. */
  maxCompressionRatio: number;
}

/** Defaults: 10,000 entries, 1 GiB uncompressed, ratio 200. */
export const DEFAULT_ZIP_LIMITS: ZipLimits = { maxEntries: 10_000, maxUncompressedBytes: 1024 * MIB, maxCompressionRatio: 200 };

export interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

// Names must stay inside the folder they are unpacked into, whatever the unpacking OS.
function assertSafeName(name: string, field: string): void {
  const bare = name.endsWith("/") ? name.slice(0, -1) : name;
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name))
    throw new InvalidInputError(field, `entry "${name}" has an absolute path`);
  if (name.includes("\\") || name.includes("\0") || bare.split("/").some((part) => part === ".." || part === "" || part === "."))
    throw new InvalidInputError(field, `entry "${name}" has an unsafe path (zip-slip: '..', '.', empty parts, '\\' or NUL)`);
}

/**
 * The checked central directory of an archive of `archiveBytes` bytes whose bytes from offset `base` on
 * are in `buf` (the whole archive, or its tail from the central directory on: zip-file-check.ts).
 */
export function readCentralDirectory(
  buf: Buffer,
  field: string,
  limits: ZipLimits,
  base = 0,
  archiveBytes = buf.length,
): CentralEntry[] {
  // The end record is the last 22 bytes plus an optional comment of up to 65535 bytes.
  let endOffset = -1;
  for (let p = buf.length - 22; p >= Math.max(0, buf.length - 22 - 0xffff); p--) {
    if (buf.readUInt32LE(p) === END_SIGNATURE) {
      endOffset = p;
      break;
    }
  }
  if (endOffset < 0) throw new InvalidInputError(field, "not a ZIP archive (no end of central directory record)");
  const count = buf.readUInt16LE(endOffset + 10);
  if (count > limits.maxEntries)
    throw new InvalidInputError(field, `holds ${count} entries; at most ${limits.maxEntries} are accepted`);
  let p = buf.readUInt32LE(endOffset + 16) - base;
  if (p < 0) throw new InvalidInputError(field, "corrupt end of central directory record (directory offset)");
  const entries: CentralEntry[] = [];
  let totalBytes = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL_SIGNATURE)
      throw new InvalidInputError(field, `corrupt central directory entry ${i}`);
    const madeBy = buf.readUInt16LE(p + 4) >> 8;
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const mode = buf.readUInt32LE(p + 38) >>> 16;
    const localOffset = buf.readUInt32LE(p + 42);
    if (p + 46 + nameLength > buf.length) throw new InvalidInputError(field, `corrupt central directory entry ${i}`);
    const name = buf.toString("utf8", p + 46, p + 46 + nameLength);
    p += 46 + nameLength + extraLength + commentLength;
    assertSafeName(name, field);
    if (madeBy === UNIX_HOST && (mode & FILE_TYPE_MASK) === SYMLINK_TYPE)
      throw new InvalidInputError(field, `entry "${name}" is a symbolic link; links are not accepted`);
    if (name.endsWith("/")) continue;
    if (size > limits.maxUncompressedBytes)
      throw new InvalidInputError(
        field,
        `entry "${name}" inflates to ${size} bytes; at most ${limits.maxUncompressedBytes} are accepted`,
      );
    totalBytes += size;
    if (totalBytes > limits.maxUncompressedBytes)
      throw new InvalidInputError(
        field,
        `entries inflate to more than ${limits.maxUncompressedBytes} bytes in total; at most ${limits.maxUncompressedBytes} are accepted`,
      );
    if (size >= RATIO_FLOOR_BYTES && size > compressedSize * limits.maxCompressionRatio)
      throw new InvalidInputError(
        field,
        `entry "${name}" has a compression ratio of ${Math.round(size / Math.max(compressedSize, 1))}; at most ${limits.maxCompressionRatio} is accepted (zip bomb)`,
      );
    entries.push({ name, method, crc, compressedSize, size, localOffset });
  }
  if (totalBytes >= RATIO_FLOOR_BYTES && totalBytes > archiveBytes * limits.maxCompressionRatio)
    throw new InvalidInputError(
      field,
      `inflates ${Math.round(totalBytes / archiveBytes)} times its size; at most ${limits.maxCompressionRatio} is accepted (zip bomb)`,
    );
  return entries;
}

function inflateEntry(buf: Buffer, entry: CentralEntry, field: string): Buffer {
  const { name, localOffset } = entry;
  if (localOffset + 30 > buf.length || buf.readUInt32LE(localOffset) !== LOCAL_SIGNATURE)
    throw new InvalidInputError(field, `corrupt local header of ${name}`);
  const dataStart = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
  if (dataStart + entry.compressedSize > buf.length)
    throw new InvalidInputError(field, `entry ${name} runs past the end of the archive`);
  const payload = buf.subarray(dataStart, dataStart + entry.compressedSize);
  let data: Buffer;
  // A stored entry is a view of the archive, not a copy: a big upload is held once, not twice.
  if (entry.method === 0) data = payload;
  else if (entry.method === 8) {
    try {
      // Capped one byte past the declared size, so an entry that lies about it is caught, not inflated.
      data = inflateRawSync(payload, { maxOutputLength: entry.size + 1 });
    } catch (error) {
      throw new InvalidInputError(field, `entry ${name} is not valid DEFLATE data (${(error as Error).message})`);
    }
  } else throw new InvalidInputError(field, `entry ${name} uses unsupported compression method ${entry.method}`);
  if (data.length !== entry.size || crc32(data) >>> 0 !== entry.crc)
    throw new InvalidInputError(field, `entry ${name} fails its CRC-32 check`);
  return data;
}

/** The file entries of a ZIP archive (directory entries are skipped), checked against their CRC-32 and `limits`. */
export function readZip(archive: Uint8Array, field = "zip", limits: ZipLimits = DEFAULT_ZIP_LIMITS): ZipEntry[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  try {
    return readCentralDirectory(buf, field, limits).map((entry) => ({ name: entry.name, data: inflateEntry(buf, entry, field) }));
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    // Offsets pointing outside the buffer, and the like: the data is broken, not the server.
    throw new InvalidInputError(field, `corrupt ZIP data (${(error as Error).message})`);
  }
}
