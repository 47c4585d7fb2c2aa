// A minimal ZIP writer (PKWARE APPNOTE 6.3, no ZIP64, no encryption) on node:zlib: each entry is
// DEFLATE-compressed (level 1: model JSON shrinks almost as much as at the default level, in half the
// time, and every model a pipeline trains is zipped), or STOREd when compression does not make it smaller. Entries are flat names,
// as the reference's shutil.make_archive(save_path, "zip", save_path) writes them.
import { crc32, deflateRawSync } from "node:zlib";
import { InvalidInputError } from "../domain/errors.js";

/** One file of an archive. */
export interface ZipEntry {
  name: string;
  data: Uint8Array;
}

const METHOD_STORE = 0;
const METHOD_DEFLATE = 8;
const UTF8_FLAG = 0x0800;
const VERSION = 20;
const MAX_32 = 0xffffffff;
const DEFLATE_LEVEL = 1;

// MS-DOS date and time fields of a Date (local time, 2 s resolution, years from 1980).
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getFullYear());
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** Builds a ZIP archive of the entries, in the given order. */
export function createZip(entries: readonly ZipEntry[], modifiedAt: Date = new Date()): Buffer {
  const { time, date } = dosDateTime(modifiedAt);
  const localParts: Buffer[] = [];
  const centralParts: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    if (name.length === 0 || name.length > 0xffff) throw new InvalidInputError("zip.entries", `bad entry name "${entry.name}"`);
    const deflated = deflateRawSync(entry.data, { level: DEFLATE_LEVEL });
    const stored = deflated.length >= entry.data.length;
    const payload = stored ? Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength) : deflated;
    const crc = crc32(entry.data) >>> 0;
    if (payload.length > MAX_32 || entry.data.length > MAX_32 || offset > MAX_32) {
      throw new InvalidInputError("zip.entries", `entry ${entry.name} is too large for a ZIP without ZIP64`);
    }
    const method = stored ? METHOD_STORE : METHOD_DEFLATE;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_FLAG, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(payload.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    localParts.push(local, name, payload);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | VERSION, 4); // made by: Unix
    central.writeUInt16LE(VERSION, 6);
    central.writeUInt16LE(UTF8_FLAG, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(payload.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0o100644 * 0x10000, 38); // external attributes: regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    centralParts.push(central, name);

    offset += local.length + name.length + payload.length;
  }
  const centralSize = centralParts.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...localParts, ...centralParts, end]);
}
