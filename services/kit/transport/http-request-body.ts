// Reading an HTTP/1.1 request body with a size bound, for handlers served beside gRPC
// (shared-port-listener.ts). The head and whole-request timeouts are the listener's.
import type { IncomingMessage } from "node:http";
import { AbortError } from "abort-controller-x";
import type { UploadReservation } from "../calls/upload-budget.js";

/** The body is larger than the handler accepts (answer 413). */
export class BodyTooLargeError extends Error {
  override readonly name = "BodyTooLargeError";
  constructor(readonly limitBytes: number) {
    super(`request body larger than ${limitBytes} bytes`);
  }
}

/**
 * The whole body, or BodyTooLargeError as soon as it (or its announced Content-Length) passes
 * `limitBytes`. The rest of an oversized body is read and dropped, so the client gets the answer
 * instead of a reset while it is still sending. With a `reservation` (the process's upload budget), the
 * bytes read are reserved as they come and a body that does not fit is refused the same way with the
 * budget's AdmissionRefused (HTTP 429 with Retry-After); the caller releases the reservation when done.
 */
export function readRequestBody(request: IncomingMessage, limitBytes: number, reservation?: UploadReservation): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A client gone before its body ended (also while its call waited for a slot: the stream is then
    // destroyed already and emits nothing more) is a cancelled call, not a body that never ends.
    const gone = () => reject(new AbortError());
    if (request.destroyed && !request.complete) {
      gone();
      return;
    }
    request.once("close", () => {
      if (!request.complete) gone();
    });
    const announced = Number(request.headers["content-length"]);
    if (Number.isFinite(announced) && announced > limitBytes) {
      request.resume();
      reject(new BodyTooLargeError(limitBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const refuse = (error: Error): void => {
      request.off("data", onData);
      request.resume();
      reject(error);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limitBytes) {
        refuse(new BodyTooLargeError(limitBytes));
        return;
      }
      try {
        reservation?.grow(size);
      } catch (error) {
        refuse(error as Error);
        return;
      }
      chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => resolve(Buffer.concat(chunks)));
    request.once("error", reject);
  });
}
