import { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type RegistryConfig, registryConfigSchema, readRegistryConfig } from "./config.js";
import { createRegistryService } from "./server.js";

/** Starts the registry gRPC server. */
export async function startRegistry(config: RegistryConfig, deps: { logger: Logger }): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "registry",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    services: [{ definition: RegistryServiceDefinition, implementation: createRegistryService() }],
  });
}

export const registryLauncher: ServiceLauncher<RegistryConfig> = {
  name: "registry",
  peers: [],
  configSchema: registryConfigSchema,
  readConfig: readRegistryConfig,
  start: startRegistry,
};
