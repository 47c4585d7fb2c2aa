import { IsolatorServiceDefinition } from "../generated/kepler/model/v1/isolator_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type IsolatorConfig, isolatorConfigSchema, readIsolatorConfig } from "./config.js";
import { createIsolatorService } from "./server.js";

/** Starts the isolator gRPC server. */
export async function startIsolator(config: IsolatorConfig, deps: { logger: Logger }): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "isolator",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    services: [{ definition: IsolatorServiceDefinition, implementation: createIsolatorService() }],
  });
}

export const isolatorLauncher: ServiceLauncher<IsolatorConfig> = {
  name: "isolator",
  peers: ["registry"],
  configSchema: isolatorConfigSchema,
  readConfig: readIsolatorConfig,
  start: startIsolator,
};
