import { ExtractorServiceDefinition } from "../generated/kepler/model/v1/extractor_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/transport/grpc-server.js";
import type { Logger } from "../kit/observe/logger.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { type WithOverload, overloadOf } from "../kit/config/overload-config.js";
import type { ServiceLauncher } from "../kit/config/service-launcher.js";
import { type ExtractorConfig, extractorConfigSchema, readExtractorConfig } from "./config.js";
import { createExtractRunner } from "./extract-pool.js";
import { createExtractorService } from "./server.js";
import { createAllowlist } from "../prometheus/url-allowlist.js";

/** Starts the extractor gRPC server. */
export async function startExtractor(
  config: WithOverload<WithSecurity<ExtractorConfig>>,
  deps: { logger: Logger },
): Promise<ServerHandle> {
  // The worker threads start now, while the process starts (see worker-pool.ts).
  const runner = createExtractRunner(config.workerThreads);
  let server: ServerHandle;
  try {
    server = await startGrpcServer({
      serviceName: "extractor",
      host: config.host,
      port: config.port,
      logger: deps.logger,
      security: securityOf(config),
      overload: overloadOf(config),
      services: [
        {
          definition: ExtractorServiceDefinition,
          implementation: createExtractorService({
            prometheusTimeoutMs: config.prometheusTimeoutMs,
            prometheusAllowlist: createAllowlist(config.prometheusAllowlist),
            runTask: (task) => runner.run(task),
          }),
        },
      ],
    });
  } catch (error) {
    await runner.close();
    throw error;
  }
  return {
    ...server,
    close: async () => {
      await server.close();
      await runner.close();
    },
  };
}

export const extractorLauncher: ServiceLauncher<ExtractorConfig> = {
  name: "extractor",
  peers: [],
  configSchema: extractorConfigSchema,
  readConfig: readExtractorConfig,
  start: startExtractor,
};
