// Reads the archives zip-writer.ts writes, and ordinary ZIPs such as the reference's
// shutil.make_archive output (STORE or DEFLATE entries, no ZIP64, no encryption).
import { crc32, inflateRawSync } from "node:zlib";
import { InvalidInputError } from "../domain/errors.js";
import type { ZipEntry } from "./zip-writer.js";

const END_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

/** The file entries of a ZIP archive (directory entries are skipped), checked against their CRC-32. */
export function readZip(archive: Uint8Array, field = "zip"): ZipEntry[] {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
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
  let p = buf.readUInt32LE(endOffset + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== CENTRAL_SIGNATURE)
      throw new InvalidInputError(field, `corrupt central directory entry ${i}`);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const localOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + nameLength);
    p += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith("/")) continue;
    if (buf.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) throw new InvalidInputError(field, `corrupt local header of ${name}`);
    const dataStart = localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    const payload = buf.subarray(dataStart, dataStart + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(payload);
    else if (method === 8) data = inflateRawSync(payload);
    else throw new InvalidInputError(field, `entry ${name} uses unsupported compression method ${method}`);
    if (data.length !== size || crc32(data) >>> 0 !== crc)
      throw new InvalidInputError(field, `entry ${name} fails its CRC-32 check`);
    entries.push({ name, data });
  }
  return entries;
}
