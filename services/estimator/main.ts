import { EstimatorServiceDefinition } from "../generated/kepler/model/v1/estimator_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type EstimatorConfig, estimatorConfigSchema, readEstimatorConfig } from "./config.js";
import { createEstimatorService } from "./server.js";

/** Starts the estimator gRPC server. */
export async function startEstimator(config: EstimatorConfig, deps: { logger: Logger }): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "estimator",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    services: [{ definition: EstimatorServiceDefinition, implementation: createEstimatorService() }],
  });
}

export const estimatorLauncher: ServiceLauncher<EstimatorConfig> = {
  name: "estimator",
  peers: ["registry"],
  configSchema: estimatorConfigSchema,
  readConfig: readEstimatorConfig,
  start: startEstimator,
};
