import { ServerError, Status } from "nice-grpc";
import { isAbortError } from "abort-controller-x";
import {
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
  NotImplementedError,
  UnavailableError,
} from "../domain/errors.js";
import { WasmKernelError } from "../../wasm-core/src/index.js";
import type { Logger } from "./logger.js";

/**
 * The one place domain failures become gRPC status. Only ServerError crosses the wire: anything
 * unexpected is INTERNAL with a fixed message, and its full error and stack go to the log.
 */
export function toServerError(error: unknown, logger: Logger): ServerError | unknown {
  if (error instanceof ServerError || isAbortError(error)) return error;
  const mapped = mapKnown(error);
  if (mapped !== undefined) {
    logger.warn({ code: Status[mapped.code], details: mapped.details }, "request failed");
    return mapped;
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
