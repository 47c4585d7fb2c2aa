// The error admission control throws, in a file of its own: the error table maps it without importing
// the admission policy (which imports the pipeline that imports the table).
/**
 * The call was not admitted (the server is at its limit); the client may retry after `retryAfterMs`.
 * It carries no stack trace: a flood makes one per excess call, and the stacks of the refusal and of
 * its gRPC status were an eighth of the server CPU a refused call cost; it is always thrown by admission.
 */
export class AdmissionRefused extends Error {
  override readonly name = "AdmissionRefused";
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 1000) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.retryAfterMs = retryAfterMs;
  }
}
