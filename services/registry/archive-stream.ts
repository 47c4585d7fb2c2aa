// Archives over gRPC streams: spooling a header-then-chunks upload to a temporary file (a small one held
// in memory) within the upload bound and the process's upload budget, and sending an archive (read whole, within the same budget) as
// messages whose first carries the header fields.
import { createHash, randomBytes } from "node:crypto";
import { type FileHandle, open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { ServerError, Status } from "nice-grpc";
import { InvalidInputError } from "../domain/errors.js";
import type { UploadBudget } from "../kit/calls/upload-budget.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import { checkZipBytes, checkZipFile } from "../models/zip-file-check.js";
import type { ZipLimits } from "../models/zip-reader.js";

/** Where and within what an upload is spooled. */
export interface UploadSpooling {
  /** Largest archive, in bytes (registry-max-upload-bytes). */
  maxBytes: number;
  /** The process's upload budget: the archive's bytes are reserved there while the upload is handled. */
  budget: UploadBudget;
  /** Folder of the temporary file (the model folder: same disk as the models, cleaned on start). */
  folder: string;
}

// Uploads up to this size stay in memory, reserved in the budget all the same: most model archives are
// this small, and writing, checking and reading back a temporary file for each cost a whole pipeline's
// publishes about 4 % (bench reference, 40 models).
const HELD_IN_MEMORY_BYTES = 256 * 1024;

/** An upload written to a temporary file or held in memory, its bytes reserved in the upload budget until `discard`. */
export interface SpooledUpload<H> {
  readonly header: H;
  /** The temporary file, or the bytes of an upload of at most HELD_IN_MEMORY_BYTES. */
  readonly spooled: { readonly path: string } | { readonly bytes: Buffer };
  readonly sizeBytes: number;
  /** Hex SHA-256 of the bytes, computed as they were written. */
  readonly sha256: string;
  /** Raises the upload's reservation to `totalBytes` (AdmissionRefused when the budget lacks room). */
  reserve(totalBytes: number): void;
  /** Removes the file and releases the reservation (idempotent). */
  discard(): Promise<void>;
}

/** The temporary name of an upload: `.upload.tmp-<suffix>`, a leftover removed on start if a kill left it. */
function uploadSpoolPath(folder: string): string {
  return join(folder, `.upload.tmp-${randomBytes(6).toString("hex")}`);
}

/**
 * Reads a header-then-chunks stream into a temporary file, never holding more than one chunk past the
 * first HELD_IN_MEMORY_BYTES (an upload no larger stays in memory and no file is written): the header
 * (checked by `checkHeader` before any chunk is read), then the chunks written as they come. The bytes are
 * reserved in the budget as they arrive (from the first chunk, by `announcedBytes(header)` when the client
 * announced the size, else by the running size); an upload that does not fit is refused with
 * RESOURCE_EXHAUSTED and a retry hint. Stops as soon as the bytes pass `maxBytes`. On any failure the file
 * is removed and the reservation released; on success the caller discards it when done.
 */
export async function spoolHeaderAndChunks<H>(
  requests: AsyncIterable<{ content?: { $case: "header"; value: H } | { $case: "archiveChunk"; value: Buffer } | undefined }>,
  spooling: UploadSpooling,
  checkHeader: (header: H) => void = () => {},
  announcedBytes: (header: H) => number = () => 0,
): Promise<SpooledUpload<H>> {
  const reservation = spooling.budget.reserve("this upload");
  const path = uploadSpoolPath(spooling.folder);
  let file: FileHandle | undefined;
  // The chunks while the upload is small; undefined once it is written to the file.
  let held: Buffer[] | undefined = [];
  const discard = async () => {
    reservation.release();
    await file?.close().catch(() => {});
    file = undefined;
    if (held === undefined) await rm(path, { force: true });
  };
  try {
    let header: H | undefined;
    let total = 0;
    let index = 0;
    const hash = createHash("sha256");
    for await (const request of requests) {
      const content = request.content;
      if (index === 0) {
        if (content?.$case !== "header")
          throw new InvalidInputError("requests[0].header", "the first message must carry the header");
        header = content.value;
        checkHeader(header);
      } else if (content?.$case !== "archiveChunk") {
        throw new InvalidInputError(
          `requests[${index}]`,
          "only the first message carries the header; the others carry archive chunks",
        );
      } else {
        total += content.value.byteLength;
        if (total > spooling.maxBytes) throw uploadTooLarge(spooling.maxBytes);
        reservation.grow(Math.max(total, index === 1 ? announcedBytes(header as H) : 0));
        hash.update(content.value);
        if (held !== undefined && total <= HELD_IN_MEMORY_BYTES) held.push(content.value);
        else {
          if (file === undefined) {
            // Past the in-memory size: the file takes what was held, then every chunk as it comes.
            const pieces = held ?? [];
            held = undefined;
            file = await open(path, "wx", 0o600);
            for (const piece of pieces) await file.write(piece);
          }
          await file.write(content.value);
        }
      }
      index++;
    }
    if (header === undefined) throw new InvalidInputError("requests", "empty stream: the first message must carry the header");
    await file?.close();
    file = undefined;
    return {
      header,
      spooled: held === undefined ? { path } : { bytes: Buffer.concat(held) },
      sizeBytes: total,
      sha256: hash.digest("hex"),
      reserve: (bytes) => reservation.grow(bytes),
      discard,
    };
  } catch (error) {
    await discard();
    throw error;
  }
}

/**
 * A PublishModel-shaped upload spooled (its announced size reserved at the first chunk), checked against
 * the size and SHA-256 its header announced (INVALID_ARGUMENT naming the field, the upload discarded).
 */
export async function spoolAnnouncedArchive<H extends { archiveSizeBytes: number; archiveSha256: string }>(
  requests: AsyncIterable<{ content?: { $case: "header"; value: H } | { $case: "archiveChunk"; value: Buffer } | undefined }>,
  spooling: UploadSpooling,
): Promise<SpooledUpload<H>> {
  const upload = await spoolHeaderAndChunks(
    requests,
    spooling,
    (h) => checkAnnouncedSize(h.archiveSizeBytes, spooling.maxBytes),
    (h) => h.archiveSizeBytes,
  );
  const { archiveSizeBytes, archiveSha256 } = upload.header;
  let mismatch: InvalidInputError | undefined;
  if (archiveSizeBytes !== 0 && archiveSizeBytes !== upload.sizeBytes)
    mismatch = new InvalidInputError(
      "header.archive_size_bytes",
      `announced ${archiveSizeBytes} bytes, received ${upload.sizeBytes}`,
    );
  else if (archiveSha256 !== "" && upload.sha256 !== archiveSha256.toLowerCase())
    mismatch = new InvalidInputError("header.archive_sha256", "does not match the received archive");
  if (mismatch === undefined) return upload;
  await upload.discard();
  throw mismatch;
}

/**
 * Runs `use` on the spooled archive's bytes once its central directory passed the zip checks on the file
 * (nothing read into memory for an archive refused there), then discards the upload whatever happens.
 * The reservation grows first by what the compressed entries inflate to (stored entries are views of the
 * archive), so a small archive that inflates big is held to the budget too.
 */
export async function usingSpooledZip<T>(
  upload: SpooledUpload<unknown>,
  field: string,
  limits: ZipLimits,
  use: (zip: Buffer) => Promise<T>,
): Promise<T> {
  try {
    const { spooled } = upload;
    const entries = await ("bytes" in spooled
      ? checkZipBytes(spooled.bytes, field, limits)
      : checkZipFile(spooled.path, field, limits));
    upload.reserve(upload.sizeBytes + entries.reduce((sum, entry) => sum + (entry.method === 0 ? 0 : entry.size), 0));
    return await use("bytes" in spooled ? spooled.bytes : await readFile(spooled.path));
  } finally {
    await upload.discard();
  }
}

function uploadTooLarge(maxBytes: number): ServerError {
  return new ServerError(
    Status.RESOURCE_EXHAUSTED,
    `archive_chunk: the archive exceeds the registry's upload bound of ${maxBytes} bytes (registry-max-upload-bytes)`,
  );
}

// An announced size over the bound is refused before any chunk is read.
export function checkAnnouncedSize(announcedBytes: number, maxBytes: number): void {
  if (announcedBytes > maxBytes) throw uploadTooLarge(maxBytes);
}

/**
 * The archive as stream messages: the first carries `first`'s fields and the first chunk (an empty chunk
 * for an empty archive, so the header fields are always sent), the others one chunk each.
 */
export function* archiveMessages<F extends object>(bytes: Uint8Array, first: F): Generator<F | { archiveChunk: Buffer }> {
  if (bytes.byteLength === 0) {
    yield { ...first, archiveChunk: Buffer.alloc(0) };
    return;
  }
  let isFirst = true;
  for (const chunk of byteChunks(bytes)) {
    yield isFirst ? { ...first, archiveChunk: Buffer.from(chunk) } : { archiveChunk: Buffer.from(chunk) };
    isFirst = false;
  }
}

/**
 * An archive read whole to be sent (GetModelArchive), its size reserved in the upload budget from before it
 * is read until its last message is taken, so downloads of big archives add up within the same bound.
 */
export async function* budgetedArchiveMessages<F extends object>(
  budget: UploadBudget,
  sizeBytes: number,
  read: () => Promise<Uint8Array>,
  first: F,
): AsyncGenerator<(F & { archiveSizeBytes: number }) | { archiveChunk: Buffer }> {
  const reservation = budget.reserve("this archive");
  try {
    reservation.grow(sizeBytes);
    const bytes = await read();
    yield* archiveMessages(bytes, { ...first, archiveSizeBytes: bytes.byteLength });
  } finally {
    reservation.release();
  }
}
