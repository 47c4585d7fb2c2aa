// The typed errors domain code throws. They carry facts, not transport codes; the server kit
// (services/kit/calls/error-table.ts) maps them to gRPC status, HTTP status and socket reply once for
// every service and transport; services/kit/calls/peer-errors.ts maps a peer's status back to them.

/** What kind of failure a domain error is: the error table's row for it. */
export type DomainErrorKind =
  "invalid-input" | "not-found" | "failed-precondition" | "already-exists" | "unavailable" | "not-implemented";

/** Every error domain code throws on purpose; `kind` lets the error table answer it without knowing the class. */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

/** The request is wrong whatever the state: `field` is a path like `rows[3].values`. */
export class InvalidInputError extends DomainError {
  override readonly name = "InvalidInputError";
  readonly kind = "invalid-input";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** Something looked up does not exist: `what` says what was looked for. */
export class NotFoundError extends DomainError {
  override readonly name = "NotFoundError";
  readonly kind = "not-found";
  constructor(readonly what: string) {
    super(`${what} not found`);
  }
}

/**
 * The request is fine but the system is not ready for it (e.g. no model trained yet). `subject` names
 * what is not ready when a caller can act on it (e.g. the request field naming state the server lost).
 */
export class FailedPreconditionError extends DomainError {
  override readonly name = "FailedPreconditionError";
  readonly kind = "failed-precondition";
  readonly subject: string | undefined;
  constructor(message: string, options?: { subject?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.subject = options?.subject;
  }
}

/** What the request would create exists already (a pipeline imported twice, an online run started twice). */
export class AlreadyExistsError extends DomainError {
  override readonly name: string = "AlreadyExistsError";
  readonly kind = "already-exists";
}

/** A peer service or Prometheus could not be reached. */
export class UnavailableError extends DomainError {
  override readonly name = "UnavailableError";
  readonly kind = "unavailable";
  constructor(
    readonly peer: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${peer}: ${message}`, options);
  }
}

/** A capability that a later version will provide. Answered as UNIMPLEMENTED, never faked. */
export class NotImplementedError extends DomainError {
  override readonly name = "NotImplementedError";
  readonly kind = "not-implemented";
}

/** The error with its field named inside `parent` (e.g. `values` -> `estimate.values`) when it is invalid input. */
export function withinField(error: unknown, parent: string): unknown {
  if (!(error instanceof InvalidInputError) || error.field === parent) return error;
  return new InvalidInputError(`${parent}.${error.field}`, error.reason);
}
