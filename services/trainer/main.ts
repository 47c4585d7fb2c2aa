import { TrainerServiceDefinition } from "../generated/kepler/model/v1/trainer_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type TrainerConfig, trainerConfigSchema, readTrainerConfig } from "./config.js";
import { createTrainerService } from "./server.js";

/** Starts the trainer gRPC server. */
export async function startTrainer(config: TrainerConfig, deps: { logger: Logger }): Promise<ServerHandle> {
  return startGrpcServer({
    serviceName: "trainer",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    services: [
      {
        definition: TrainerServiceDefinition,
        implementation: createTrainerService({ modelPath: config.modelPath, logger: deps.logger.child({ service: "trainer" }) }),
      },
    ],
  });
}

export const trainerLauncher: ServiceLauncher<TrainerConfig> = {
  name: "trainer",
  peers: ["registry"],
  configSchema: trainerConfigSchema,
  readConfig: readTrainerConfig,
  start: startTrainer,
};
