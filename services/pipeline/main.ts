import { PipelineServiceDefinition } from "../generated/kepler/model/v1/pipeline_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type PipelineConfig, pipelineConfigSchema, readPipelineConfig } from "./config.js";
import { createPipelineService } from "./server.js";

/** Starts the pipeline gRPC server. */
export async function startPipeline(config: PipelineConfig, deps: { logger: Logger }): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "pipeline",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    services: [{ definition: PipelineServiceDefinition, implementation: createPipelineService() }],
  });
}

export const pipelineLauncher: ServiceLauncher<PipelineConfig> = {
  name: "pipeline",
  peers: ["registry", "extractor", "isolator", "trainer"],
  configSchema: pipelineConfigSchema,
  readConfig: readPipelineConfig,
  start: startPipeline,
};
