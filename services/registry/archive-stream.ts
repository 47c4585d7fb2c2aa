// Archives over gRPC streams: reading a header-then-chunks upload within the upload bound, and sending an
// archive as messages whose first carries the header fields.
import { ServerError, Status } from "nice-grpc";
import { InvalidInputError } from "../domain/errors.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";

// Reads a header-then-chunks stream: the header (checked by `checkHeader` before any chunk is read),
// and the chunks concatenated. Stops reading as soon as the bytes pass `maxBytes`.
export async function readHeaderAndChunks<H>(
  requests: AsyncIterable<{ content?: { $case: "header"; value: H } | { $case: "archiveChunk"; value: Buffer } | undefined }>,
  maxBytes: number,
  checkHeader: (header: H) => void = () => {},
): Promise<{ header: H; bytes: Buffer }> {
  let header: H | undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  let index = 0;
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
      if (total > maxBytes) throw uploadTooLarge(maxBytes);
      chunks.push(content.value);
    }
    index++;
  }
  if (header === undefined) throw new InvalidInputError("requests", "empty stream: the first message must carry the header");
  return { header, bytes: Buffer.concat(chunks) };
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
