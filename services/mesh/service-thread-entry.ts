// A service of `serve` on a thread of its own (service-thread.ts starts it): its own event loop, so a flood
// on another service's port (fresh HTTP connections to the registry) does not hold the loop that answers
// it. It starts the service as `serve` would, answers for its metrics (the process-wide ones stay with the
// main thread's registry) and closes it when asked.
import { parentPort, workerData } from "node:worker_threads";
import { createLogger } from "../kit/observe/logger.js";
import { metricsRegistry } from "../kit/observe/metrics.js";
import { startTracing } from "../kit/observe/tracing.js";
import type { ServiceLauncher } from "../kit/config/service-launcher.js";
import type { FromServiceThread, ServiceThreadData, ToServiceThread } from "./service-thread-messages.js";

// The services that run on a thread, each imported alone: the thread loads only its service's modules.
const LAUNCHERS: Partial<Record<ServiceThreadData["service"], () => Promise<ServiceLauncher>>> = {
  estimator: async () => (await import("../estimator/main.js")).estimatorLauncher as ServiceLauncher,
};

const port = parentPort!;
const data = workerData as ServiceThreadData;
const post = (message: FromServiceThread) => port.postMessage(message);
// Process-wide series: the main thread's registry reports them for the whole process.
const processWide = (name: string) =>
  name.startsWith("process_") || name.startsWith("nodejs_") || name === "kepler_model_build_info";

const stopTracing = data.tracesEndpoint === "" ? undefined : await startTracing({ endpoint: data.tracesEndpoint });
try {
  const launcher = LAUNCHERS[data.service];
  if (launcher === undefined) throw new Error(`${data.service} does not run on a thread of its own`);
  const handle = await (
    await launcher()
  ).start(data.config, {
    logger: createLogger(data.log),
    observation: data.observation,
  });
  port.on("message", (message: ToServiceThread) => {
    if (message.kind === "metrics") {
      void metricsRegistry
        .getMetricsAsJSON()
        .then((metrics) =>
          post({ kind: "metrics", id: message.id, metrics: metrics.filter((metric) => !processWide(metric.name)) }),
        );
      return;
    }
    void handle
      .close()
      .then(() => stopTracing?.())
      .finally(() => post({ kind: "closed" }));
  });
  post({ kind: "started", name: handle.name, address: handle.address, port: handle.port });
} catch (error) {
  await stopTracing?.();
  post({
    kind: "failed",
    name: error instanceof Error ? error.name : "Error",
    message: error instanceof Error ? error.message : String(error),
  });
}
