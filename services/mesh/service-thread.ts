// Starts one service of `serve` on a thread of its own (service-thread-entry.ts): the estimator, when it
// runs beside other services, so Estimate is answered on a loop no other service's traffic holds (bench/
// overload: a flood of fresh HTTP connections on the registry's port). The thread reaches its peers over
// the network (loopback gRPC), as separate processes do; its metrics join the process's /metrics.
import { Worker } from "node:worker_threads";
import type { ServiceName } from "../kit/config/service-addresses.js";
import type { CallObservation } from "../kit/observe/call-observation.js";
import type { Logger, LoggerOptions } from "../kit/observe/logger.js";
import { addMetricsSource } from "../kit/observe/metrics.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { WORKER_BOOTSTRAP, workerModule } from "../kit/workers/worker-pool.js";
import type { FromServiceThread, ServiceThreadData, ThreadMetrics, ToServiceThread } from "./service-thread-messages.js";

const ENTRY = workerModule("service-thread-entry", import.meta.url);
// A scrape does not wait longer than this for the thread's metrics (they are then left out once).
const METRICS_WAIT_MS = 2000;

/** How `serve` runs a service on a thread: the log settings and tracing endpoint it was started with. */
export interface ServiceThreadOptions {
  log: LoggerOptions;
  tracesEndpoint: string;
}

/** A service whose start failed on its thread: its error's name and message, as thrown there. */
class ServiceThreadStartError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/** Starts `service` with `config` on its own thread; resolves once it serves (rejects as its start would). */
export async function startServiceOnThread(
  service: ServiceName,
  config: unknown,
  deps: { logger: Logger; observation: CallObservation; thread: ServiceThreadOptions },
): Promise<ServerHandle> {
  const data: ServiceThreadData = {
    service,
    config,
    log: deps.thread.log,
    observation: deps.observation,
    tracesEndpoint: deps.thread.tracesEndpoint,
  };
  // Nice 0: the service's loop has the priority of the main thread's.
  const worker = new Worker(WORKER_BOOTSTRAP, {
    workerData: { runtime: ENTRY.href, nice: 0, ...data },
    name: `kepler-model-${service}`,
  });
  const send = (message: ToServiceThread) => worker.postMessage(message);
  const started = await new Promise<{ name: string; address: string; port: number }>((resolve, reject) => {
    const onMessage = (message: FromServiceThread) => {
      if (message.kind === "started") resolve(message);
      else if (message.kind === "failed") reject(new ServiceThreadStartError(message.name, message.message));
    };
    worker.on("message", onMessage);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`${service} thread exited (${code}) before it served`)));
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  let closing = false;
  // A service thread that ends on its own is a bug: the process stops, so its supervisor restarts it whole.
  worker.on("error", (error) => deps.logger.fatal({ err: error, service }, "service thread failed"));
  worker.once("exit", (code) => {
    if (closing) return;
    deps.logger.fatal({ code, service }, "service thread ended; stopping the process");
    process.kill(process.pid, "SIGTERM");
  });
  let nextId = 1;
  const removeSource = addMetricsSource(
    () =>
      new Promise<ThreadMetrics>((resolve) => {
        const id = nextId++;
        const timer = setTimeout(() => finish([]), METRICS_WAIT_MS);
        const onMessage = (message: FromServiceThread) => {
          if (message.kind === "metrics" && message.id === id) finish(message.metrics);
        };
        const finish = (metrics: ThreadMetrics) => {
          clearTimeout(timer);
          worker.off("message", onMessage);
          resolve(metrics);
        };
        worker.on("message", onMessage);
        send({ kind: "metrics", id });
      }),
  );
  return {
    name: started.name,
    address: started.address,
    port: started.port,
    async close() {
      if (closing) return;
      closing = true;
      removeSource();
      const closed = new Promise<void>((resolve) => {
        worker.on("message", (message: FromServiceThread) => message.kind === "closed" && resolve());
        worker.once("exit", () => resolve());
      });
      send({ kind: "close" });
      await closed;
      await worker.terminate();
    },
  };
}
