// The typed errors domain code throws. They carry facts, not transport codes; the server kit
// (services/kit/calls/error-table.ts) maps them to gRPC status, HTTP status and socket reply once for
// every service and transport; services/kit/calls/peer-errors.ts maps a peer's status back to them.

/** The request is wrong whatever the state: `field` is a path like `rows[3].values`. */
export class InvalidInputError extends Error {
  override readonly name = "InvalidInputError";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/** Something looked up does not exist: `what` says what was looked for. */
export class NotFoundError extends Error {
  override readonly name = "NotFoundError";
  constructor(readonly what: string) {
    super(`${what} not found`);
  }
}

/**
 * The request is fine but the system is not ready for it (e.g. no model trained yet). `subject` names
 * what is not ready when a caller can act on it (e.g. the request field naming state the server lost).
 */
export class FailedPreconditionError extends Error {
  override readonly name = "FailedPreconditionError";
  readonly subject: string | undefined;
  constructor(message: string, options?: { subject?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.subject = options?.subject;
  }
}

/** What the request would create exists already (a pipeline imported twice, an online run started twice). */
export class AlreadyExistsError extends Error {
  override readonly name: string = "AlreadyExistsError";
}

/** A peer service or Prometheus could not be reached. */
export class UnavailableError extends Error {
  override readonly name = "UnavailableError";
  constructor(
    readonly peer: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${peer}: ${message}`, options);
  }
}

/** A capability that a later version will provide. Answered as UNIMPLEMENTED, never faked. */
export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
}

/** The error with its field named inside `parent` (e.g. `values` -> `estimate.values`) when it is invalid input. */
export function withinField(error: unknown, parent: string): unknown {
  if (!(error instanceof InvalidInputError) || error.field === parent) return error;
  return new InvalidInputError(`${parent}.${error.field}`, error.reason);
}
