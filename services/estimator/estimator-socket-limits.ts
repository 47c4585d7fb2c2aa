// The Kepler socket's limits (estimator-socket.ts), apart so the config reads its defaults without the socket code.

/** Limits of the socket; the defaults suit Kepler, tests shorten them. */
export interface EstimatorSocketLimits {
  /** A request larger than this gets an error response (Kepler's largest is a few hundred kB). */
  maxRequestBytes: number;
  /** A client that sends nothing for this long (before its first byte, or after the answer) is disconnected. */
  idleTimeoutMs: number;
  /** A whole request must arrive within this from its first byte; a client still sending then is dropped. */
  requestDeadlineMs: number;
  /**
   * Connections held at once. One more evicts the oldest connection still sending its request (a stalled
   * client); only when every connection is being answered is the newcomer dropped.
   */
  maxConnections: number;
  /** Kepler sets no deadline of its own: past this an error response is sent, so the collector never hangs. */
  estimateDeadlineMs: number;
}

export const DEFAULT_ESTIMATOR_SOCKET_LIMITS: EstimatorSocketLimits = {
  maxRequestBytes: 4 * 1024 * 1024,
  idleTimeoutMs: 10_000,
  requestDeadlineMs: 2_000,
  maxConnections: 256,
  estimateDeadlineMs: 5_000,
};
