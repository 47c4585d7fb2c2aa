// How a failed call is answered over gRPC: the error table's code, a bounded message, structured details.
import { ServerError, Status } from "nice-grpc";
import type { Logger } from "../observe/logger.js";
import { type CallFailure, describeFailure } from "./error-table.js";
import { statusDetailsOf } from "./status-details.js";

/**
 * Longest status message we send, in characters. grpc-js never delivers a status whose message makes
 * the trailers exceed HTTP/2's header limit (about 64 KiB), and the connection then stops answering,
 * so a message that lists client input must never grow with it.
 */
export const MAX_STATUS_MESSAGE_CHARS = 4096;

/** A failure as a gRPC status: code, bounded message and the structured details trailer, if any. */
export interface GrpcStatus {
  readonly code: Status;
  readonly details: string;
  readonly detailsBin: Uint8Array | undefined;
}

/** The status a failed call is answered with (its row of the error table). */
export function grpcStatusOf(failure: CallFailure): GrpcStatus {
  const details = boundedMessage(failure.message);
  return { code: failure.row.grpc, details, detailsBin: statusDetailsOf(failure, failure.row.grpc) };
}

/**
 * A stream item's failure answered inside the response (the stream goes on): the error mapped through
 * the table and logged once. A cancellation is thrown again: it ends the call.
 */
export function itemStatus(error: unknown, logger: Logger): { code: Status; message: string } {
  const failure = describeFailure(error);
  if (failure.kind === "cancelled") throw error;
  const message = boundedMessage(failure.message);
  if (failure.row.expected) logger.warn({ code: Status[failure.row.grpc], details: message }, "request failed");
  else logger.error({ err: error }, "unexpected error");
  return { code: failure.row.grpc, message };
}

// A UTF-16 surrogate without its pair. grpc-js percent-encodes the status message with encodeURI, which
// throws on one, and the call then never gets a status: client input quoted in a message (or a cut
// through a pair) must not do that.
const ANY_SURROGATE = /[\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The error itself when its message is short enough and well-formed, else the same code with the message
 * cut and marked, and lone surrogates replaced by U+FFFD.
 */
export function boundedStatus(error: ServerError): ServerError {
  const details = boundedMessage(error.details);
  return details === error.details ? error : new ServerError(error.code, details);
}

/** The message itself when short enough and well-formed, else cut and marked, lone surrogates replaced. */
function boundedMessage(message: string): string {
  const long = message.length > MAX_STATUS_MESSAGE_CHARS;
  // Most messages have no surrogate at all: a plain character test settles them (the pair-aware pattern
  // cost a refused call of a flood about as much as its admission).
  if (!long && !ANY_SURROGATE.test(message)) return message;
  LONE_SURROGATE.lastIndex = 0;
  if (!long && !LONE_SURROGATE.test(message)) return message;
  const note = ` ... [cut: ${message.length} characters]`;
  const cut = long ? message.slice(0, MAX_STATUS_MESSAGE_CHARS - note.length) + note : message;
  return cut.replace(LONE_SURROGATE, "\uFFFD");
}
