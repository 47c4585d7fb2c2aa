// A valid model archive of any size, generated as a stream and never held whole: the entries of a small
// test model plus a stored (uncompressed) `padding.bin` of random bytes, for tests that upload hundreds of
// MiB without the test process holding them. Written in the plain ZIP layout (APPNOTE 4.3: local headers,
// central directory, end record; STORE only, no ZIP64), which the registry's reader accepts.
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { readZip } from "../../services/models/zip-reader.js";

const PADDING_NAME = Buffer.from("padding.bin");
const BLOCK_BYTES = 1024 * 1024;
// One random block repeated: incompressible for DEFLATE (its window is 32 KiB), cheap to generate; shared
// by every archive of the test process, so the CRC of a padding length is computed once.
const BLOCK = randomBytes(BLOCK_BYTES);
const paddingCrcs = new Map<number, number>();

interface PlannedEntry {
  name: Buffer;
  crc: number;
  sizeBytes: number;
  localOffset: number;
  /** The entry's bytes, in pieces of at most BLOCK_BYTES. */
  pieces: () => Generator<Buffer>;
}

function localHeader(entry: PlannedEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4); // version needed: 2.0
  header.writeUInt16LE(0, 8); // method: STORE
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.sizeBytes, 18);
  header.writeUInt32LE(entry.sizeBytes, 22);
  header.writeUInt16LE(entry.name.length, 26);
  return Buffer.concat([header, entry.name]);
}

function centralHeader(entry: PlannedEntry): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4); // made by: MS-DOS host, 2.0 (no Unix mode bits)
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(0, 10);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.sizeBytes, 20);
  header.writeUInt32LE(entry.sizeBytes, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt32LE(entry.localOffset, 42);
  return Buffer.concat([header, entry.name]);
}

/** A model archive padded to exactly `totalBytes`, as a re-playable stream of pieces of at most 1 MiB. */
export interface PaddedArchive {
  readonly sizeBytes: number;
  pieces(): Generator<Buffer>;
}

/** Pads `smallZip` (a valid model archive) to `totalBytes` with a stored entry of random bytes. */
export function paddedModelArchive(smallZip: Uint8Array, totalBytes: number): PaddedArchive {
  const entries: PlannedEntry[] = readZip(smallZip).map(({ name, data }) => ({
    name: Buffer.from(name),
    crc: crc32(data) >>> 0,
    sizeBytes: data.byteLength,
    localOffset: 0,
    pieces: function* () {
      yield Buffer.from(data);
    },
  }));
  // A local header and a central directory entry, each with the name.
  const headersBytes = (entry: { name: Buffer }) => 30 + 46 + 2 * entry.name.length;
  const fixedBytes =
    entries.reduce((sum, e) => sum + headersBytes(e) + e.sizeBytes, 0) + headersBytes({ name: PADDING_NAME }) + 22;
  const paddingBytes = totalBytes - fixedBytes;
  if (paddingBytes < 0) throw new Error(`the archive needs at least ${fixedBytes} bytes`);
  const paddingPieces = function* () {
    for (let at = 0; at < paddingBytes; at += BLOCK_BYTES) yield BLOCK.subarray(0, Math.min(BLOCK_BYTES, paddingBytes - at));
  };
  let paddingCrc = paddingCrcs.get(paddingBytes);
  if (paddingCrc === undefined) {
    paddingCrc = 0;
    for (const piece of paddingPieces()) paddingCrc = crc32(piece, paddingCrc);
    paddingCrcs.set(paddingBytes, paddingCrc);
  }
  entries.push({ name: PADDING_NAME, crc: paddingCrc >>> 0, sizeBytes: paddingBytes, localOffset: 0, pieces: paddingPieces });
  let offset = 0;
  for (const entry of entries) {
    entry.localOffset = offset;
    offset += 30 + entry.name.length + entry.sizeBytes;
  }
  const directory = Buffer.concat(entries.map(centralHeader));
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return {
    sizeBytes: offset + directory.length + end.length,
    *pieces() {
      for (const entry of entries) {
        yield localHeader(entry);
        yield* entry.pieces();
      }
      yield Buffer.concat([directory, end]);
    },
  };
}
