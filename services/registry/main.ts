import { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/grpc-server.js";
import type { Logger } from "../kit/logger.js";
import { type WithSecurity, securityOf } from "../kit/security-config.js";
import type { ServiceLauncher } from "../kit/service-launcher.js";
import { type RegistryConfig, readRegistryConfig, registryConfigSchema, registryLimitKeys, sourcePipelineMap } from "./config.js";
import { ModelStore } from "./domain/model-store.js";
import { createRegistryService } from "./server.js";

type LimitKey = keyof typeof registryLimitKeys;

/** The registry's settings; upload bounds left out take their defaults. */
export type RegistryStartConfig = Omit<RegistryConfig, LimitKey> & Partial<Pick<RegistryConfig, LimitKey>>;

/** Starts the registry gRPC server over MODEL_PATH (scanned, interrupted publishes recovered). */
export async function startRegistry(
  startConfig: WithSecurity<RegistryStartConfig>,
  deps: { logger: Logger },
): Promise<ServerHandle> {
  const limitDefaults = Object.fromEntries(Object.entries(registryLimitKeys).map(([name, key]) => [name, key.default]));
  const config = { ...limitDefaults, ...startConfig } as RegistryConfig;
  const logger = deps.logger.child({ service: "registry" });
  const store = await ModelStore.open(config.modelPath, {
    logger,
    sourcePipelines: sourcePipelineMap(config.sourcePipelines),
    zipLimits: {
      maxEntries: config.zipMaxEntries,
      maxUncompressedBytes: config.zipMaxUncompressedBytes,
      maxCompressionRatio: config.zipMaxCompressionRatio,
    },
  });
  logger.info(
    { modelPath: config.modelPath, models: store.list().length, pipelines: store.pipelines().length },
    "model folder scanned",
  );
  const handle = await startGrpcServer({
    serviceName: "registry",
    host: config.host,
    port: config.port,
    logger: deps.logger,
    security: securityOf(config),
    services: [
      {
        definition: RegistryServiceDefinition,
        implementation: createRegistryService(store, { maxUploadBytes: config.maxUploadBytes }),
      },
    ],
  });
  let rescanning = false;
  const timer =
    config.rescanIntervalMs > 0
      ? setInterval(() => {
          if (rescanning) return;
          rescanning = true;
          store
            .rescan()
            .catch((error: unknown) => logger.warn({ err: error }, "rescan failed"))
            .finally(() => {
              rescanning = false;
            });
        }, config.rescanIntervalMs)
      : undefined;
  timer?.unref();
  return {
    name: handle.name,
    address: handle.address,
    port: handle.port,
    async close() {
      if (timer !== undefined) clearInterval(timer);
      // WatchModels streams run until cancelled: end them first so shutdown does not wait for them.
      store.close();
      await handle.close();
    },
  };
}

export const registryLauncher: ServiceLauncher<RegistryConfig> = {
  name: "registry",
  peers: [],
  configSchema: registryConfigSchema,
  readConfig: readRegistryConfig,
  start: startRegistry,
};
