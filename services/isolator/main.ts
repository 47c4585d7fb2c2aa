import { IsolatorServiceDefinition } from "../generated/kepler/model/v1/isolator_service.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { serviceServerOptions, startServiceServer } from "../kit/transport/service-server.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { overloadOf, type WithOverload } from "../kit/config/overload-config.js";
import { processUploadBudget } from "../kit/calls/upload-budget.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import { createExtractorClient } from "../extractor/client.js";
import { createRegistryClient } from "../registry/client.js";
import { type IsolatorConfig, isolatorConfigSchema, readIsolatorConfig } from "./config.js";
import { createRegistryModelSource } from "./registry-model-source.js";
import { createIsolateRunner } from "./isolate-pool.js";
import { createIsolatorService } from "./server.js";

/** Starts the isolator gRPC server; its peer channels close with it. */
export async function startIsolator(
  config: WithOverload<WithSecurity<IsolatorConfig>>,
  deps: ServiceDeps,
): Promise<ServerHandle> {
  const peer = servicePeerConnection(securityOf(config));
  const registry = createRegistryClient(config.registryAddress, peer, { deadlineMs: config.peerDeadlineMs });
  const extractor = createExtractorClient(config.extractorAddress, peer, { deadlineMs: config.peerDeadlineMs });
  // The worker threads start now, while the process starts (see worker-pool.ts).
  const isolateRunner = createIsolateRunner(config.workerThreads);
  return startServiceServer(
    {
      ...serviceServerOptions("isolator", config, deps),
      requiredPeers: [
        { name: "registry", channel: registry.channel },
        { name: "extractor", channel: extractor.channel },
      ],
      services: [
        {
          definition: IsolatorServiceDefinition,
          implementation: createIsolatorService({
            extractor,
            backgroundModels: createRegistryModelSource(registry),
            isolateOffThread: isolateRunner.isolate,
            uploadBudget: processUploadBudget(overloadOf(config).uploadBudgetBytes),
          }),
        },
      ],
    },
    async () => {
      await isolateRunner.close();
      registry.close();
      extractor.close();
    },
  );
}

export const isolatorLauncher: ServiceLauncher<IsolatorConfig> = {
  name: "isolator",
  peers: ["registry", "extractor"],
  configSchema: isolatorConfigSchema,
  readConfig: readIsolatorConfig,
  start: startIsolator,
};
