// What `serve` and a service running on a thread of its own (service-thread.ts) say to each other.
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import type { ServiceName } from "../kit/config/service-addresses.js";
import type { CallObservation } from "../kit/observe/call-observation.js";

/** The thread's workerData: which service, its config (already read and checked), how it logs and observes. */
export interface ServiceThreadData {
  service: ServiceName;
  config: unknown;
  log: { level: string; format: "json" | "pretty" | "auto" };
  observation: CallObservation;
  /** The OTLP traces endpoint when tracing is on, else "". */
  tracesEndpoint: string;
}

export type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** To the thread: send your metrics, or stop. */
export type ToServiceThread = { kind: "metrics"; id: number } | { kind: "close" };

/** From the thread: started (its address) or failed, metrics asked for, closed. */
export type FromServiceThread =
  | { kind: "started"; name: string; address: string; port: number }
  | { kind: "failed"; name: string; message: string }
  | { kind: "metrics"; id: number; metrics: ThreadMetrics }
  | { kind: "closed" };
