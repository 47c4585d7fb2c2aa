import { ExtractorServiceDefinition } from "../generated/kepler/model/v1/extractor_service.js";
import type { PartlyDefaulted } from "../kit/config/config-schema.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { serviceServerOptions, startServiceServer } from "../kit/transport/service-server.js";
import type { WithSecurity } from "../kit/security/security-config.js";
import type { WithOverload } from "../kit/config/overload-config.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import { type ExtractorConfig, extractorConfigSchema, readExtractorConfig } from "./config.js";
import { createExtractRunner } from "./extract-pool.js";
import { createExtractorService } from "./server.js";
import { createAllowlist } from "../prometheus/url-allowlist.js";

/** Starts the extractor gRPC server (tests may leave out the Prometheus answer bound: the client's default). */
export async function startExtractor(
  config: WithOverload<WithSecurity<PartlyDefaulted<ExtractorConfig, "prometheusMaxResponseBytes">>>,
  deps: ServiceDeps,
): Promise<ServerHandle> {
  // The worker threads start now, while the process starts (see worker-pool.ts).
  const runner = createExtractRunner(config.workerThreads);
  return startServiceServer(
    {
      ...serviceServerOptions("extractor", config, deps),
      services: [
        {
          definition: ExtractorServiceDefinition,
          implementation: createExtractorService({
            prometheusTimeoutMs: config.prometheusTimeoutMs,
            prometheusMaxResponseBytes: config.prometheusMaxResponseBytes,
            prometheusAllowlist: createAllowlist(config.prometheusAllowlist),
            runTask: (task) => runner.run(task),
          }),
        },
      ],
    },
    () => runner.close(),
  );
}

export const extractorLauncher: ServiceLauncher<ExtractorConfig> = {
  name: "extractor",
  peers: [],
  configSchema: extractorConfigSchema,
  readConfig: readExtractorConfig,
  start: startExtractor,
};
