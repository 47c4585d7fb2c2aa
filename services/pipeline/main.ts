import { measuredPeers, measuredRun } from "./metrics.js";
import { createExtractorClient } from "../extractor/client.js";
import { PipelineServiceDefinition } from "../generated/kepler/model/v1/pipeline_service.js";
import { createIsolatorClient } from "../isolator/client.js";
import { type ServerHandle, startGrpcServer } from "../kit/transport/grpc-server.js";
import { serviceServerOptions } from "../kit/transport/service-server.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { overloadOf, type WithOverload } from "../kit/config/overload-config.js";
import { processUploadBudget } from "../kit/calls/upload-budget.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import { createRegistryClient } from "../registry/client.js";
import { createTrainerClient } from "../trainer/client.js";
import { type PipelineConfig, pipelineConfigSchema, readPipelineConfig } from "./config.js";
import { OnlinePipelines } from "./domain/online-pipelines.js";
import { runPipeline } from "./domain/run-pipeline.js";
import { createGrpcPeers } from "./grpc-peers.js";
import { createPipelineService } from "./server.js";

/** Starts the pipeline gRPC server; online pipelines stop and peer channels close with it. */
export async function startPipeline(
  config: WithOverload<WithSecurity<PipelineConfig>>,
  deps: ServiceDeps,
): Promise<ServerHandle> {
  const peer = servicePeerConnection(securityOf(config));
  const bounds = { deadlineMs: config.peerDeadlineMs };
  const clients = {
    registry: createRegistryClient(config.registryAddress, peer, bounds),
    extractor: createExtractorClient(config.extractorAddress, peer, bounds),
    isolator: createIsolatorClient(config.isolatorAddress, peer, bounds),
    trainer: createTrainerClient(config.trainerAddress, peer, bounds),
  };
  const closePeers = () => {
    for (const client of Object.values(clients)) client.close();
  };
  const peers = measuredPeers(createGrpcPeers(clients));
  const logger = deps.logger.child({ service: "pipeline" });
  const online = new OnlinePipelines({
    run: (options, gate, signal) => measuredRun("online", () => runPipeline(options, { peers, signal }, gate)),
    logger,
  });
  try {
    const server = await startGrpcServer({
      ...serviceServerOptions("pipeline", config, deps),
      requiredPeers: Object.entries(clients).map(([name, client]) => ({ name, channel: client.channel })),
      services: [
        {
          definition: PipelineServiceDefinition,
          implementation: createPipelineService({
            peers,
            registry: clients.registry,
            online,
            uploadBudget: processUploadBudget(overloadOf(config).uploadBudgetBytes),
          }),
        },
      ],
    });
    return {
      ...server,
      close: async () => {
        await online.close();
        await server.close();
        closePeers();
      },
    };
  } catch (error) {
    await online.close();
    closePeers();
    throw error;
  }
}

export const pipelineLauncher: ServiceLauncher<PipelineConfig> = {
  name: "pipeline",
  peers: ["registry", "extractor", "isolator", "trainer"],
  configSchema: pipelineConfigSchema,
  readConfig: readPipelineConfig,
  start: startPipeline,
};
