import { readConfig } from "../kit/config/config-schema.js";
import type { ServerHandle } from "../kit/transport/grpc-server.js";
import { servicePeerConnection } from "../kit/security/peer-connection.js";
import { securityConfigSchema } from "../kit/security/security-config.js";
import { SERVICE_NAMES, type ServiceName } from "../kit/config/service-addresses.js";
import { type DefaultModelsEvent, type DefaultModelsOutcome, ensureDefaultModels } from "./default-models.js";
import { type MeshHandle, type MeshOptions, startMesh } from "./start-mesh.js";

/** The services the default training runs through. */
const TRAINING_SERVICES: readonly ServiceName[] = ["registry", "pipeline", "extractor", "isolator", "trainer"];

export interface DefaultMeshOptions extends MeshOptions {
  /** Train the default pipeline when the model folder is empty (needs the training services in this process). */
  defaultModels: boolean;
  /**
   * Called before the default training starts (the folder is empty), e.g. to print a header, with the number
   * of models of an unfinished earlier default training removed first.
   */
  onDefaultModelsStart?: (removedUnfinishedCount: number) => void;
  onDefaultModelsEvent?: (event: DefaultModelsEvent) => void;
  /** Aborting stops a default training in progress; the estimator is then not started. */
  signal?: AbortSignal;
}

/** The running mesh and what the default training did (undefined when it did not apply). */
export interface DefaultMeshHandle extends MeshHandle {
  readonly defaultModels?: DefaultModelsOutcome | { readonly status: "failed"; readonly error: unknown };
}

/**
 * Starts the mesh like startMesh; when the default models apply, the estimator starts only after they are
 * published, so its health turns SERVING when Estimate can answer. A failed default training is reported,
 * not fatal: the services keep running and the estimator answers FAILED_PRECONDITION until models exist.
 */
export async function startMeshWithDefaultModels(options: DefaultMeshOptions): Promise<DefaultMeshHandle> {
  const wanted = options.services && options.services.length > 0 ? options.services : SERVICE_NAMES;
  if (!options.defaultModels || !TRAINING_SERVICES.every((name) => wanted.includes(name))) return startMesh(options);

  const first = await startMesh({ ...options, services: wanted.filter((name) => name !== "estimator") });
  const address = (name: ServiceName) => first.servers.find((server) => server.name === name)!.address;
  let outcome: DefaultMeshHandle["defaultModels"];
  try {
    outcome = await ensureDefaultModels({
      registryAddress: address("registry"),
      pipelineAddress: address("pipeline"),
      // The same token and TLS settings the services use for their peers.
      connection: servicePeerConnection(readConfig(securityConfigSchema, options.env ?? {}, options.flags ?? {})),
      onEvent: options.onDefaultModelsEvent,
      signal: options.signal,
      onEmpty: options.onDefaultModelsStart,
    });
  } catch (error) {
    options.logger.error({ err: error }, "default model training failed");
    outcome = { status: "failed", error };
  }
  if (!wanted.includes("estimator") || options.signal?.aborted === true) return { ...first, defaultModels: outcome };

  let second: MeshHandle;
  try {
    second = await startMesh({
      ...options,
      services: ["estimator"],
      flags: { ...options.flags, "registry-address": address("registry") },
    });
  } catch (error) {
    await first.close();
    throw error;
  }
  const servers: ServerHandle[] = [...first.servers, ...second.servers].sort(
    (a, b) => SERVICE_NAMES.indexOf(a.name as ServiceName) - SERVICE_NAMES.indexOf(b.name as ServiceName),
  );
  return {
    servers,
    defaultModels: outcome,
    close: async () => {
      await second.close();
      await first.close();
    },
  };
}
