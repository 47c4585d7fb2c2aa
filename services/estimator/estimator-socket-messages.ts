// What the estimator and its socket thread (estimator-socket-thread.ts) say to each other.
import type { EstimatorSocketLimits } from "./estimator-socket-limits.js";

/** The thread's workerData. */
export interface SocketThreadData {
  path: string;
  limits: EstimatorSocketLimits;
}

/** From the estimator: a request's answer, or stop. */
export type ToSocketThread = { kind: "answer"; id: number; text: string } | { kind: "close" };

/** From the thread: its listen outcome, a complete request to answer, a log line, or that it closed. */
export type FromSocketThread =
  | { kind: "listening" }
  | { kind: "listen-failed"; message: string; code?: string }
  | { kind: "request"; id: number; text: string }
  | { kind: "log"; level: "debug" | "warn" | "error"; fields: Record<string, unknown>; msg: string }
  | { kind: "closed" };
