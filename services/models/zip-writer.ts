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

/** An entry's fields that the local header and the central directory record both hold, in the same order. */
interface EntryFields {
  method: number;
  time: number;
  date: number;
  crc: number;
  compressedSize: number;
  size: number;
  nameLength: number;
}

// Writes the shared fields from `at`: version needed, flags, method, time, date, CRC, sizes, name length
// (APPNOTE 4.3.7 and 4.3.12 lay them out alike, the central record 2 bytes further on).
function writeEntryFields(header: Buffer, at: number, fields: EntryFields): void {
  header.writeUInt16LE(VERSION, at);
  header.writeUInt16LE(UTF8_FLAG, at + 2);
  header.writeUInt16LE(fields.method, at + 4);
  header.writeUInt16LE(fields.time, at + 6);
  header.writeUInt16LE(fields.date, at + 8);
  header.writeUInt32LE(fields.crc, at + 10);
  header.writeUInt32LE(fields.compressedSize, at + 14);
  header.writeUInt32LE(fields.size, at + 18);
  header.writeUInt16LE(fields.nameLength, at + 22);
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
    const fields: EntryFields = {
      method: stored ? METHOD_STORE : METHOD_DEFLATE,
      time,
      date,
      crc,
      compressedSize: payload.length,
      size: entry.data.length,
      nameLength: name.length,
    };

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, fields);
    localParts.push(local, name, payload);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | VERSION, 4); // made by: Unix
    writeEntryFields(central, 6, fields);
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
