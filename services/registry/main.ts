import { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { type ServerHandle, startGrpcServer } from "../kit/transport/grpc-server.js";
import { serviceServerOptions } from "../kit/transport/service-server.js";
import type { Logger } from "../kit/observe/logger.js";
import type { WithSecurity } from "../kit/security/security-config.js";
import { overloadOf, type WithOverload } from "../kit/config/overload-config.js";
import { processUploadBudget } from "../kit/calls/upload-budget.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import type { PartlyDefaulted } from "../kit/config/config-schema.js";
import { type RegistryConfig, readRegistryConfig, registryConfigSchema, registryLimitKeys, sourcePipelineMap } from "./config.js";
import { s3SettingsOf } from "../object-store/index.js";
import { ModelCatalogue } from "./domain/model-catalogue.js";
import { lifecycleConfigSchema, lifecycleOf } from "./lifecycle-config.js";
import { SharedModelStore } from "./domain/shared-store.js";
import { openStorage } from "./storage/backends.js";
import { LocalFolderStorage } from "./storage/local/local-folder-storage.js";
import { removeLeftoverFiles } from "./storage/local/leftover-files.js";
import { checkLocalStoreFormat } from "./storage/local/local-store-format.js";
import { registryHttpRoutes } from "./http-api.js";
import { measureStore, observeStorePull } from "./metrics.js";
import { createRegistryService } from "./server.js";

// Keys callers that build the config by hand (tests) may leave out: their schema defaults apply.
const DEFAULTED_KEYS = {
  ...registryLimitKeys,
  ...lifecycleConfigSchema,
  modelStore: registryConfigSchema.modelStore,
  modelStorePollMs: registryConfigSchema.modelStorePollMs,
  s3Endpoint: registryConfigSchema.s3Endpoint,
  s3Region: registryConfigSchema.s3Region,
  s3TimeoutMs: registryConfigSchema.s3TimeoutMs,
  httpHeadersTimeoutMs: registryConfigSchema.httpHeadersTimeoutMs,
  httpRequestTimeoutMs: registryConfigSchema.httpRequestTimeoutMs,
};
type DefaultedKey = keyof typeof DEFAULTED_KEYS;

/** The registry's settings; keys left out take their defaults. */
export type RegistryStartConfig = PartlyDefaulted<RegistryConfig, DefaultedKey>;

/**
 * Starts the registry over MODEL_PATH (scanned, interrupted publishes recovered): gRPC, and on the same
 * port the reference model server's HTTP routes (POST /model, GET /best-models) that Kepler calls.
 */
export async function startRegistry(
  startConfig: WithOverload<WithSecurity<RegistryStartConfig>>,
  deps: ServiceDeps,
): Promise<ServerHandle> {
  const defaults = Object.fromEntries(Object.entries(DEFAULTED_KEYS).map(([name, key]) => [name, key.default]));
  const config = { ...defaults, ...startConfig } as WithOverload<WithSecurity<RegistryConfig>>;
  const logger = deps.logger.child({ service: "registry" });
  const replica =
    config.modelStore === ""
      ? undefined
      : new SharedModelStore(await openStorage(config.modelStore, { s3: s3SettingsOf(config) }, "--model-store"), logger);
  // A store of a newer format than this version reads stops the start (docs/operations.md, upgrades).
  await checkLocalStoreFormat(config.modelPath);
  const catalogue = await ModelCatalogue.open(await LocalFolderStorage.open(config.modelPath, logger), {
    logger,
    shared: replica,
    lifecycle: await lifecycleOf(config),
    sourcePipelines: sourcePipelineMap(config.sourcePipelines),
    zipLimits: {
      maxEntries: config.zipMaxEntries,
      maxUncompressedBytes: config.zipMaxUncompressedBytes,
      maxCompressionRatio: config.zipMaxCompressionRatio,
    },
  });
  // Uploads a kill interrupted (archive-stream.ts spools them beside the pipelines).
  for (const path of await removeLeftoverFiles(config.modelPath)) logger.warn({ path }, "removed an interrupted upload");
  logger.info(
    { modelPath: config.modelPath, models: catalogue.list().length, pipelines: catalogue.pipelines().length },
    "model folder scanned",
  );
  const poller = replica === undefined ? undefined : await startPolling(replica, catalogue, config.modelStorePollMs, logger);
  measureStore(catalogue);
  const uploadBudget = processUploadBudget(overloadOf(config).uploadBudgetBytes);
  const handle = await startGrpcServer({
    ...serviceServerOptions("registry", config, deps),
    services: [
      {
        definition: RegistryServiceDefinition,
        implementation: createRegistryService(catalogue, {
          spooling: { maxBytes: config.maxUploadBytes, budget: uploadBudget, folder: config.modelPath },
        }),
      },
    ],
    http: {
      routes: registryHttpRoutes(catalogue, uploadBudget),
      headersTimeoutMs: config.httpHeadersTimeoutMs,
      requestTimeoutMs: config.httpRequestTimeoutMs,
    },
  });
  let rescanning = false;
  const timer =
    config.rescanIntervalMs > 0
      ? setInterval(() => {
          if (rescanning) return;
          rescanning = true;
          catalogue
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
      poller?.stop();
      // WatchModels streams run until cancelled: end them first so shutdown does not wait for them.
      catalogue.close();
      await handle.close();
    },
  };
}

/**
 * Fills the cache from the shared store, then pulls every `intervalMs`. An unreachable store at start is
 * logged and the cached models are served meanwhile; each pull retries.
 */
async function startPolling(
  replica: SharedModelStore,
  catalogue: ModelCatalogue,
  intervalMs: number,
  logger: Logger,
): Promise<{ stop(): void }> {
  let reachable: boolean | undefined;
  let running: Promise<void> | undefined;
  const pull = () =>
    (running ??= replica
      .pull(catalogue)
      .then((result) => {
        observeStorePull(replica.name, true);
        if (reachable !== true)
          logger.info({ store: replica.name, ...result, models: catalogue.list().length }, "model store reachable");
        else if (result.published + result.removed + result.pipelineFiles > 0)
          logger.info({ store: replica.name, ...result }, "applied the model store's changes");
        reachable = true;
      })
      .catch((error: unknown) => {
        observeStorePull(replica.name, false);
        if (reachable !== false)
          logger.warn(
            { store: replica.name, reason: (error as Error).message },
            "model store unreachable; serving the cached models",
          );
        reachable = false;
      })
      .finally(() => {
        running = undefined;
      }));
  await pull();
  const timer = intervalMs > 0 ? setInterval(() => void pull(), intervalMs) : undefined;
  timer?.unref();
  return {
    stop() {
      if (timer !== undefined) clearInterval(timer);
      replica.close();
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
