// A listener that cannot start (port taken, address not local, socket folder missing) fails the whole
// start: `serve` exits non-zero with this error's one line, which names the listener and its address.

/** A gRPC, HTTP, metrics or socket listener could not bind its address. */
class ListenFailure extends Error {
  constructor(
    /** What was listening, e.g. "estimator gRPC" or "metrics HTTP". */
    readonly listener: string,
    /** host:port, or the socket's path. */
    readonly address: string,
    /** The system's code when it gave one (EADDRINUSE, EACCES, EADDRNOTAVAIL). */
    readonly code: string | undefined,
    reason: string,
  ) {
    super(`${listener} cannot listen on ${address}: ${reason}`);
    this.name = "ListenFailure";
  }
}

/** The ListenFailure for `error`, thrown while `listener` bound `address` (a ListenFailure passes through). */
export function listenFailure(listener: string, address: string, error: unknown): ListenFailure {
  if (error instanceof ListenFailure) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = error instanceof Error ? error.message : String(error);
  return new ListenFailure(listener, address, typeof code === "string" ? code : undefined, reason);
}
