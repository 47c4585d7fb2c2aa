// Reading the answer of a URL that a user or a peer named (a Prometheus, a node exporter, a zip to import,
// a checkpoint store) with a size bound: whatever that server sends, at most `limitBytes` of it are held.
// An answer announcing more (Content-Length) is refused before its body is read; one that grows past the
// bound is cut off there (the connection is dropped, the rest is never received). It lives in the shared
// domain, the one layer below every reader of such URLs (services/prometheus, the services, the CLI).

/** Bytes held for a body while it is read (the server kit's upload-budget reservation fits). */
export interface ByteReservation {
  /** Raises the held bytes to `totalBytes`; throws when they do not fit. */
  grow(totalBytes: number): void;
}

/** An HTTP answer larger than its reader accepts (answered as RESOURCE_EXHAUSTED, kit/calls/error-table.ts). */
export class ResponseTooLargeError extends Error {
  override readonly name = "ResponseTooLargeError";
  constructor(
    readonly source: string,
    readonly limitBytes: number,
    readonly limitName: string,
    readonly announcedBytes?: number,
  ) {
    super(
      announcedBytes === undefined
        ? `${source} sent more than ${limitBytes} bytes (${limitName}); stopped reading there`
        : `${source} announced ${announcedBytes} bytes (Content-Length), more than ${limitBytes} (${limitName}); not read`,
    );
  }
}

/** How much of an answer may be held, and what to call the bound in errors. */
export interface ResponseLimit {
  /** The most body bytes (after content decoding) that are read. */
  readonly limitBytes: number;
  /** What the bound is, for the error: a flag (`--prometheus-max-response-bytes`) or a short phrase. */
  readonly limitName: string;
  /**
   * Bytes reserved in the process's upload budget as they arrive (the announced size at once), before
   * the bound is checked: its refusal (retry later, or never fits) passes through. The caller releases it.
   */
  readonly reservation?: ByteReservation;
}

// Content-Length counts the encoded bytes: compare it with the bound only when the body is not encoded.
function announcedLength(response: Response): number | undefined {
  const encoding = response.headers.get("content-encoding");
  if (encoding !== null && encoding !== "identity") return undefined;
  const length = Number(response.headers.get("content-length") ?? Number.NaN);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * The body of `response` chunk by chunk, within `limit` (see the file comment); `source` names the URL in
 * errors. Leaving the loop early (break, a throw in the consumer) also drops the connection.
 */
export async function* cappedResponseChunks(
  response: Response,
  source: string,
  limit: ResponseLimit,
): AsyncGenerator<Uint8Array> {
  const announced = announcedLength(response);
  if (announced !== undefined) {
    try {
      limit.reservation?.grow(announced);
      if (announced > limit.limitBytes) throw new ResponseTooLargeError(source, limit.limitBytes, limit.limitName, announced);
    } catch (error) {
      await response.body?.cancel().catch(() => {});
      throw error;
    }
  }
  if (response.body === null) return;
  const reader = response.body.getReader();
  let finished = false;
  try {
    let sizeBytes = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      sizeBytes += next.value.byteLength;
      limit.reservation?.grow(sizeBytes);
      if (sizeBytes > limit.limitBytes) throw new ResponseTooLargeError(source, limit.limitBytes, limit.limitName);
      yield next.value;
    }
    finished = true;
  } finally {
    // Cancelling the stream aborts the request: the server's further bytes are not received.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The whole body of `response`, within `limit` (see cappedResponseChunks). */
export async function readCappedBody(response: Response, source: string, limit: ResponseLimit): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of cappedResponseChunks(response, source, limit)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text, within `limit`. */
export async function readCappedText(response: Response, source: string, limit: ResponseLimit): Promise<string> {
  return (await readCappedBody(response, source, limit)).toString("utf8");
}

/** The body parsed as JSON, within `limit`; a SyntaxError when it is not JSON. */
export async function readCappedJson(response: Response, source: string, limit: ResponseLimit): Promise<unknown> {
  return JSON.parse(await readCappedText(response, source, limit)) as unknown;
}
