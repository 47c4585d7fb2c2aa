// How the servers of one process observe their calls. Chosen once when the process starts (serve reads
// --metrics-port and the OTLP endpoint) and passed down through the launcher to every call pipeline, so
// two servers in one process (or one test) can observe differently and nothing is switched globally.

export interface CallObservation {
  /** Per-call metrics (calls, latency, in-flight); off with `--metrics-port -1`. */
  readonly measure: boolean;
  /** A span per call; on only when startTracing has set up a tracer provider for this process. */
  readonly trace: boolean;
}

/** Measured, not traced: what a server gets when its starter says nothing. */
export const DEFAULT_CALL_OBSERVATION: CallObservation = { measure: true, trace: false };
