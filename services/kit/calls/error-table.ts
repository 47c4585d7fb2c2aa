// The one table of how a failure is answered, whatever door the call came in by: each kind of error
// and its gRPC status, HTTP status and unix-socket outcome. Transports render a failure from its row;
// nothing else looks at error classes on the way out (peer-errors.ts is the way back in).
import { isAbortError } from "abort-controller-x";
import { ServerError, Status } from "nice-grpc";
import { ResponseTooLargeError } from "../../domain/capped-response-body.js";
import {
  DomainError,
  type DomainErrorKind,
  FailedPreconditionError,
  InvalidInputError,
  NotFoundError,
} from "../../domain/errors.js";
import { WasmKernelError } from "../../../wasm-core/src/index.js";
import { AccessDenied } from "../security/access-denied.js";
import { BodyTooLargeError } from "../transport/http-request-body.js";
import { AdmissionRefused } from "./admission-refused.js";

/** A socket request's outcome (also its metric label): answered, refused with a reason, or failed. */
export type SocketOutcome = "ok" | "refused" | "error";

/** How one kind of failure is answered on each transport. */
export interface ErrorRow {
  readonly grpc: Status;
  readonly http: number;
  readonly socket: SocketOutcome;
  /** A refusal the caller can act on: its message is sent. Otherwise a bug: a fixed message is sent, the error logged. */
  readonly expected: boolean;
}

export type ErrorKind =
  DomainErrorKind | "unauthenticated" | "permission-denied" | "too-large" | "overloaded" | "cancelled" | "internal";

export const ERROR_TABLE: Readonly<Record<ErrorKind, ErrorRow>> = {
  "invalid-input": { grpc: Status.INVALID_ARGUMENT, http: 400, socket: "refused", expected: true },
  "not-found": { grpc: Status.NOT_FOUND, http: 404, socket: "refused", expected: true },
  "failed-precondition": { grpc: Status.FAILED_PRECONDITION, http: 400, socket: "refused", expected: true },
  "already-exists": { grpc: Status.ALREADY_EXISTS, http: 409, socket: "refused", expected: true },
  unavailable: { grpc: Status.UNAVAILABLE, http: 503, socket: "refused", expected: true },
  "not-implemented": { grpc: Status.UNIMPLEMENTED, http: 501, socket: "refused", expected: true },
  unauthenticated: { grpc: Status.UNAUTHENTICATED, http: 401, socket: "refused", expected: true },
  "permission-denied": { grpc: Status.PERMISSION_DENIED, http: 403, socket: "refused", expected: true },
  "too-large": { grpc: Status.RESOURCE_EXHAUSTED, http: 413, socket: "refused", expected: true },
  overloaded: { grpc: Status.RESOURCE_EXHAUSTED, http: 429, socket: "refused", expected: true },
  cancelled: { grpc: Status.CANCELLED, http: 499, socket: "error", expected: false },
  internal: { grpc: Status.INTERNAL, http: 500, socket: "error", expected: false },
};

/** What every transport sends for an unexpected error (the log has the error and its stack). */
export const INTERNAL_MESSAGE = "internal error; the server log has the details";

/** The kind of a thrown value: the only place error classes are told apart on the way out. */
export function errorKindOf(error: unknown): ErrorKind {
  if (error instanceof DomainError) return error.kind;
  // A kernel refusing its input (singular matrix, NaN) is a property of the data the client sent.
  if (error instanceof WasmKernelError) return "invalid-input";
  if (error instanceof AccessDenied) return error.kind;
  if (error instanceof BodyTooLargeError || error instanceof ResponseTooLargeError) return "too-large";
  if (error instanceof AdmissionRefused) return "overloaded";
  if (error instanceof ServerError) return kindOfStatus(error.code);
  if (isAbortError(error)) return "cancelled";
  return "internal";
}

/** Whether the error is one the caller can act on (a refusal), not a bug. */
export function isRefusal(error: unknown): boolean {
  return ERROR_TABLE[errorKindOf(error)].expected;
}

// A ServerError thrown by glue keeps its code: the kind whose row has that code.
function kindOfStatus(code: Status): ErrorKind {
  for (const [kind, row] of Object.entries(ERROR_TABLE)) if (row.grpc === code) return kind as ErrorKind;
  return "internal";
}

/** A failed call as every transport renders it. */
export interface CallFailure {
  readonly kind: ErrorKind;
  readonly row: ErrorRow;
  /** The message sent: the error's own for a refusal, INTERNAL_MESSAGE otherwise. */
  readonly message: string;
  readonly error: unknown;
  /** Structured facts sent beside the message (status-details.ts), so a peer never parses the text. */
  readonly facts: FailureFacts | undefined;
}

/** The facts of a domain error a peer can act on. */
export interface FailureFacts {
  /** Invalid input: the field path and why. */
  readonly field?: { readonly path: string; readonly reason: string };
  /** Not found: what was looked for. */
  readonly missing?: string;
  /** Failed precondition: what is not ready (e.g. a request field naming state the server lost). */
  readonly precondition?: string;
  /** Overloaded: when the client may try again (HTTP Retry-After, gRPC RetryInfo). */
  readonly retryAfterMs?: number;
}

function factsOf(error: unknown): FailureFacts | undefined {
  if (error instanceof InvalidInputError) return { field: { path: error.field, reason: error.reason } };
  if (error instanceof NotFoundError) return { missing: error.what };
  if (error instanceof FailedPreconditionError && error.subject !== undefined) return { precondition: error.subject };
  if (error instanceof AdmissionRefused) return { retryAfterMs: error.retryAfterMs };
  return undefined;
}

/** The failure for a thrown value. */
export function describeFailure(error: unknown): CallFailure {
  const kind = errorKindOf(error);
  const row = ERROR_TABLE[kind];
  const message = !row.expected
    ? INTERNAL_MESSAGE
    : error instanceof ServerError
      ? error.details
      : error instanceof Error
        ? error.message
        : String(error);
  return { kind, row, message, error, facts: row.expected ? factsOf(error) : undefined };
}
