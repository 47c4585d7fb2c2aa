import { TrainerServiceDefinition } from "../generated/kepler/model/v1/trainer_service.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { serviceServerOptions, startServiceServer } from "../kit/transport/service-server.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { overloadOf, type WithOverload } from "../kit/config/overload-config.js";
import { processUploadBudget } from "../kit/calls/upload-budget.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import { createRegistryClient } from "../registry/client.js";
import { type TrainerConfig, trainerConfigSchema, readTrainerConfig } from "./config.js";
import { createFitPool } from "./fit-pool.js";
import { loadTrainerModules } from "./load-trainer-modules.js";
import { createRegistryPublisher } from "./registry-publisher.js";
import { type ArchiveFetcher, registryArchiveFetcher, urlArchiveFetcher } from "./remote-checkpoints.js";
import { createTrainerService } from "./server.js";

/**
 * Starts the trainer gRPC server. With a registry address, archives are published through the registry's
 * PublishModel (served at once); with an empty one, into the local model folder.
 */
export async function startTrainer(config: WithOverload<WithSecurity<TrainerConfig>>, deps: ServiceDeps): Promise<ServerHandle> {
  await loadTrainerModules(config.trainerModules);
  const registry =
    config.registryAddress === ""
      ? undefined
      : createRegistryClient(config.registryAddress, servicePeerConnection(securityOf(config)), {
          deadlineMs: config.peerDeadlineMs,
        });
  const checkpointStores: ArchiveFetcher[] = [];
  if (registry !== undefined) checkpointStores.push(registryArchiveFetcher(registry));
  if (config.checkpointUrl !== "")
    checkpointStores.push(
      urlArchiveFetcher(config.checkpointUrl, config.peerDeadlineMs, processUploadBudget(overloadOf(config).uploadBudgetBytes)),
    );
  // The worker threads start now, while the process starts (see worker-pool.ts).
  const fitter = createFitPool(config.workerThreads);
  return startServiceServer(
    {
      ...serviceServerOptions("trainer", config, deps),
      requiredPeers: registry === undefined ? [] : [{ name: "registry", channel: registry.channel }],
      services: [
        {
          definition: TrainerServiceDefinition,
          implementation: createTrainerService({
            modelPath: config.modelPath,
            publishModel: registry === undefined ? undefined : createRegistryPublisher(registry),
            checkpointStores,
            fitter,
            logger: deps.logger.child({ service: "trainer" }),
          }),
        },
      ],
    },
    async () => {
      await fitter.close();
      registry?.close();
    },
  );
}

export const trainerLauncher: ServiceLauncher<TrainerConfig> = {
  name: "trainer",
  peers: ["registry"],
  configSchema: trainerConfigSchema,
  readConfig: readTrainerConfig,
  start: startTrainer,
};
