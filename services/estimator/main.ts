import { setMaxListeners } from "node:events";
import { readFile } from "node:fs/promises";
import { InvalidInputError } from "../domain/errors.js";
import { EstimatorServiceDefinition } from "../generated/kepler/model/v1/estimator_service.js";
import { type GrpcServerHandle, type ServerHandle, startGrpcServer } from "../kit/transport/grpc-server.js";
import { serviceServerOptions } from "../kit/transport/service-server.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { type WithSecurity, securityOf } from "../kit/security/security-config.js";
import { type WithOverload, overloadOf } from "../kit/config/overload-config.js";
import { createAdmissionPolicy } from "../kit/calls/admission.js";
import type { ServiceDeps, ServiceLauncher } from "../kit/config/service-launcher.js";
import type { PartlyDefaulted } from "../kit/config/config-schema.js";
import { discoverMachineSpec, type MachineSpec } from "../node-types/index.js";
import { createRegistryClient } from "../registry/client.js";
import { type EstimatorConfig, estimatorConfigSchema, readEstimatorConfig } from "./config.js";
import { Estimator } from "./domain/estimate-power.js";
import { ModelCache } from "./domain/model-cache.js";
import { createRegistryModelSource } from "./registry-model-source.js";
import { readTrustedKeys } from "../models/index.js";
import { watchRegistry } from "./registry-watch.js";
import { cacheEvents, observeEstimate, observeRegistryReachable } from "./metrics.js";
import { type EstimatorSocketHandle, type EstimatorSocketLimits, startEstimatorSocket } from "./estimator-socket.js";
import { createEstimatorDirectMethods, createEstimatorService } from "./server.js";

// The first WatchModels attempt is awaited this long at most, so a slow registry cannot stall start-up.
const WATCH_START_WAIT_MS = 3000;

/** This host's machine: the spec file when configured (the reference's --machine-spec), else discovered. */
async function ownMachine(path: string): Promise<MachineSpec> {
  if (path !== "") {
    let spec: Record<string, unknown>;
    try {
      spec = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new InvalidInputError("--machine-spec", `cannot read ${path}: ${(error as Error).message}`);
    }
    const num = (value: unknown) => (typeof value === "number" && value > 0 ? value : 0);
    return {
      processor: typeof spec.processor === "string" ? spec.processor : "",
      cores: num(spec.cores),
      chips: num(spec.chips),
      memoryGib: num(spec.memory),
      frequencyMhz: num(spec.frequency),
    };
  }
  const found = await discoverMachineSpec();
  return {
    processor: found.processor,
    cores: found.cores,
    chips: found.chips,
    memoryGib: found.memory,
    frequencyMhz: found.frequency ?? 0,
  };
}

/** Keys a caller that builds the config by hand (tests) may leave out. */
type OptionalKey =
  "modelCacheEntries" | "intervalCoveragePercent" | "socketMaxConnections" | "socketRequestDeadlineMs" | "modelPublicKeysFile";

/** Optional settings tests use to shorten the socket's limits. */
export interface EstimatorDeps extends ServiceDeps {
  socketLimits?: Partial<EstimatorSocketLimits>;
}

/**
 * Starts the estimator: models come from the registry at registryAddress, reloaded on WatchModels
 * events; gRPC always, and Kepler's unix socket when config.estimatorSocket is set. Health is
 * NOT_SERVING while no registry is reachable and no model is cached (nothing could be estimated).
 */
export async function startEstimator(
  config: WithOverload<WithSecurity<PartlyDefaulted<EstimatorConfig, OptionalKey>>>,
  deps: EstimatorDeps,
): Promise<ServerHandle> {
  const logger = deps.logger.child({ service: "estimator" });
  const machine = await ownMachine(config.machineSpecFile);
  const keysFile = config.modelPublicKeysFile ?? "";
  const trustedKeys = keysFile === "" ? undefined : await readTrustedKeys(keysFile, "--model-public-keys-file");
  const registry = createRegistryClient(config.registryAddress, servicePeerConnection(securityOf(config)), {
    deadlineMs: config.registryDeadlineMs,
    boundedStreams: ["/kepler.model.v1.RegistryService/GetModelArchive"],
  });
  const estimator = new Estimator(
    new ModelCache(createRegistryModelSource(registry, trustedKeys), logger, {
      maxEntries: config.modelCacheEntries,
      observer: cacheEvents,
    }),
    machine,
    (config.intervalCoveragePercent ?? 90) / 100,
  );
  let registryReachable = false;
  let grpc: GrpcServerHandle | undefined;
  const isReady = () => registryReachable || estimator.holdsModel();
  const watch = watchRegistry(registry, estimator, logger, (reachable) => {
    if (reachable !== registryReachable)
      logger.info({ registry: config.registryAddress, reachable }, "registry reachability changed");
    registryReachable = reachable;
    observeRegistryReachable(reachable);
    grpc?.setServing(isReady());
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([watch.firstAttempt, new Promise<void>((resolve) => (timer = setTimeout(resolve, WATCH_START_WAIT_MS)))]);
  clearTimeout(timer);
  let socket: EstimatorSocketHandle | undefined;
  const closing = new AbortController();
  // Every open EstimateStream listens for the close: as many listeners as streams, by design.
  setMaxListeners(Number.POSITIVE_INFINITY, closing.signal);
  // gRPC Estimate and the Kepler socket share the service's admission (its priority slots).
  const overload = overloadOf(config);
  const admission = createAdmissionPolicy(overload);
  try {
    grpc = await startGrpcServer({
      ...serviceServerOptions("estimator", config, deps),
      serving: isReady(),
      overload,
      admission,
      services: [
        {
          definition: EstimatorServiceDefinition,
          implementation: createEstimatorService({ estimator, logger, closing: closing.signal }),
          direct: createEstimatorDirectMethods({ estimator, logger, closing: closing.signal }),
        },
      ],
    });
    if (config.estimatorSocket !== "") {
      socket = await startEstimatorSocket({
        path: config.estimatorSocket,
        estimate: async (input) => observeEstimate(await estimator.estimate(input), "socket"),
        logger,
        limits: {
          ...(config.socketMaxConnections === undefined ? {} : { maxConnections: config.socketMaxConnections }),
          ...(config.socketRequestDeadlineMs === undefined ? {} : { requestDeadlineMs: config.socketRequestDeadlineMs }),
          ...deps.socketLimits,
        },
        admission,
        observation: deps.observation,
      });
    }
  } catch (error) {
    watch.stop();
    await grpc?.close();
    registry.close();
    throw error;
  }
  const handle = grpc;
  logger.info({ registry: config.registryAddress, machine, socket: config.estimatorSocket || undefined }, "estimator ready");
  return {
    name: handle.name,
    address: handle.address,
    port: handle.port,
    async close() {
      closing.abort();
      watch.stop();
      await socket?.close();
      await handle.close();
      registry.close();
    },
  };
}

export const estimatorLauncher: ServiceLauncher<EstimatorConfig> = {
  name: "estimator",
  peers: ["registry"],
  configSchema: estimatorConfigSchema,
  readConfig: readEstimatorConfig,
  start: startEstimator,
};
