// The typed errors domain code throws. They carry facts, not transport codes; the server kit
// (services/kit/calls/status-mapping.ts) maps them to gRPC status once for every service.

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

/** The request is fine but the system is not ready for it (e.g. no model trained yet). */
export class FailedPreconditionError extends Error {
  override readonly name = "FailedPreconditionError";
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
