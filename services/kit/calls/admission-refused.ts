// The error admission control throws, in a file of its own: the error table maps it without importing
// the admission policy (which imports the pipeline that imports the table).
/** The call was not admitted (the server is at its limit); the client may retry after `retryAfterMs`. */
export class AdmissionRefused extends Error {
  override readonly name = "AdmissionRefused";
  constructor(
    message: string,
    readonly retryAfterMs = 1000,
  ) {
    super(message);
  }
}
