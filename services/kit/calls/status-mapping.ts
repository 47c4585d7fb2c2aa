import { ServerError, Status } from "nice-grpc";
import { isAbortError } from "abort-controller-x";
import {
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../../domain/errors.js";
import { WasmKernelError } from "../../../wasm-core/src/index.js";
import type { Logger } from "../observe/logger.js";

/**
 * Longest status message we send, in characters. grpc-js never delivers a status whose message makes
 * the trailers exceed HTTP/2's header limit (about 64 KiB), and the connection then stops answering,
 * so a message that lists client input must never grow with it.
 */
export const MAX_STATUS_MESSAGE_CHARS = 4096;

/**
 * The one place domain failures become gRPC status. Only ServerError crosses the wire: anything
 * unexpected is INTERNAL with a fixed message, and its full error and stack go to the log. Every
 * message is cut to MAX_STATUS_MESSAGE_CHARS.
 */
export function toServerError(error: unknown, logger: Logger): ServerError | unknown {
  if (isAbortError(error)) return error;
  if (error instanceof ServerError) return boundedStatus(error);
  const mapped = mapKnown(error);
  if (mapped !== undefined) {
    const bounded = boundedStatus(mapped);
    logger.warn({ code: Status[bounded.code], details: bounded.details }, "request failed");
    return bounded;
  }
  logger.error({ err: error }, "unexpected error");
  return new ServerError(Status.INTERNAL, "internal error; the server log has the details");
}

function mapKnown(error: unknown): ServerError | undefined {
  if (error instanceof InvalidInputError) return new ServerError(Status.INVALID_ARGUMENT, error.message);
  if (error instanceof NotFoundError) return new ServerError(Status.NOT_FOUND, error.message);
  if (error instanceof FailedPreconditionError) return new ServerError(Status.FAILED_PRECONDITION, error.message);
  if (error instanceof UnavailableError) return new ServerError(Status.UNAVAILABLE, error.message);
  if (error instanceof NotImplementedError) return new ServerError(Status.UNIMPLEMENTED, error.message);
  // A kernel refusing its input (singular matrix, NaN) is a property of the data the client sent.
  if (error instanceof WasmKernelError) return new ServerError(Status.INVALID_ARGUMENT, error.message);
  return undefined;
}

// A UTF-16 surrogate without its pair. grpc-js percent-encodes the status message with encodeURI, which
// throws on one, and the call then never gets a status: client input quoted in a message (or a cut
// through a pair) must not do that.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The error itself when its message is short enough and well-formed, else the same code with the message
 * cut and marked, and lone surrogates replaced by U+FFFD.
 */
export function boundedStatus(error: ServerError): ServerError {
  const long = error.details.length > MAX_STATUS_MESSAGE_CHARS;
  LONE_SURROGATE.lastIndex = 0;
  if (!long && !LONE_SURROGATE.test(error.details)) return error;
  const note = ` ... [cut: ${error.details.length} characters]`;
  const details = long ? error.details.slice(0, MAX_STATUS_MESSAGE_CHARS - note.length) + note : error.details;
  return new ServerError(error.code, details.replace(LONE_SURROGATE, "\uFFFD"));
}
