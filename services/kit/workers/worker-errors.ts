// The worker boundary's error table: a domain error thrown on a worker thread crosses as a plain object
// (worker-tasks.ts flattens it) and is rebuilt here with its class and fields, so it maps to the same
// answer (calls/error-table.ts) as when thrown on the main thread.
import { WasmKernelError } from "../../../wasm-core/src/index.js";
import { FailedPreconditionError, InvalidInputError, NotFoundError, NotImplementedError } from "../../domain/errors.js";
import type { FlatError } from "./worker-tasks.js";

/** A task failed inside a worker: carries the worker-side error's name and message. */
class WorkerTaskError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(message);
    this.name = errorName;
  }
}

/** Rebuilds a domain error thrown in a worker, so it maps to the same gRPC status as on the main thread. */
export function reviveError(error: FlatError): Error {
  const { field, reason, what, kernel, status, subject } = error.fields;
  if (error.name === "InvalidInputError" && typeof field === "string" && typeof reason === "string")
    return new InvalidInputError(field, reason);
  if (error.name === "NotFoundError" && typeof what === "string") return new NotFoundError(what);
  // A kernel refusing the data maps to INVALID_ARGUMENT, as on the main thread.
  if (error.name === "WasmKernelError" && typeof kernel === "string" && typeof status === "number")
    return new WasmKernelError(kernel, status);
  if (error.name === "FailedPreconditionError")
    return new FailedPreconditionError(error.message, { subject: typeof subject === "string" ? subject : undefined });
  if (error.name === "NotImplementedError") return new NotImplementedError(error.message);
  return new WorkerTaskError(error.name, error.message);
}
