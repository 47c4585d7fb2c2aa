import { IsolatorServiceDefinition } from "../generated/kepler/model/v1/isolator_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/transport/grpc-server.js";
import type { Logger } from "../kit/observe/logger.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { type WithOverload, overloadOf } from "../kit/config/overload-config.js";
import type { ServiceLauncher } from "../kit/config/service-launcher.js";
import { createExtractorClient } from "../extractor/client.js";
import { createRegistryClient } from "../registry/client.js";
import { type IsolatorConfig, isolatorConfigSchema, readIsolatorConfig } from "./config.js";
import { createRegistryModelSource } from "./registry-model-source.js";
import { createIsolateRunner } from "./isolate-pool.js";
import { createIsolatorService } from "./server.js";

/** Starts the isolator gRPC server; its peer channels close with it. */
export async function startIsolator(
  config: WithOverload<WithSecurity<IsolatorConfig>>,
  deps: { logger: Logger },
): Promise<ServerHandle> {
  const peer = servicePeerConnection(securityOf(config));
  const registry = createRegistryClient(config.registryAddress, peer, { deadlineMs: config.peerDeadlineMs });
  const extractor = createExtractorClient(config.extractorAddress, peer, { deadlineMs: config.peerDeadlineMs });
  // The worker threads start now, while the process starts (see worker-pool.ts).
  const isolateRunner = createIsolateRunner(config.workerThreads);
  const closePeers = () => {
    registry.close();
    extractor.close();
  };
  try {
    const server = await startGrpcServer({
      serviceName: "isolator",
      host: config.host,
      port: config.port,
      logger: deps.logger,
      security: securityOf(config),
      overload: overloadOf(config),
      requiredPeers: [
        { name: "registry", channel: registry.channel },
        { name: "extractor", channel: extractor.channel },
      ],
      peerHealthIntervalMs: config.peerHealthIntervalMs,
      services: [
        {
          definition: IsolatorServiceDefinition,
          implementation: createIsolatorService({
            extractor,
            backgroundModels: createRegistryModelSource(registry),
            isolateOffThread: isolateRunner.isolate,
          }),
        },
      ],
    });
    return {
      ...server,
      close: async () => {
        await server.close();
        await isolateRunner.close();
        closePeers();
      },
    };
  } catch (error) {
    await isolateRunner.close();
    closePeers();
    throw error;
  }
}

export const isolatorLauncher: ServiceLauncher<IsolatorConfig> = {
  name: "isolator",
  peers: ["registry", "extractor"],
  configSchema: isolatorConfigSchema,
  readConfig: readIsolatorConfig,
  start: startIsolator,
};
