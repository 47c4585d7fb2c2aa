/** A refused call: no/unknown token (gRPC UNAUTHENTICATED, HTTP 401) or a read token on a write (PERMISSION_DENIED, 403). */
export class AccessDenied extends Error {
  override readonly name = "AccessDenied";
  constructor(
    readonly kind: "unauthenticated" | "permission-denied",
    message: string,
    /** For the log: why, and the token's name when one was recognised. */
    readonly reason: string,
    readonly caller?: string,
  ) {
    super(message);
  }
}
