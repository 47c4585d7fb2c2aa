// Continued training from a model published elsewhere (reference seed 000, step 1): when the trainer's
// local folder has no checkpoint, the same model's archive, from the registry (GetModelArchive) or from
// a kepler-model-db style URL, becomes the checkpoint: its features, MaxAbs scale and component model.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { UnavailableError } from "../domain/errors.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { fromPeerError, isPeerNotFound } from "../kit/calls/peer-errors.js";
import type { UploadBudget } from "../kit/calls/upload-budget.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { readCappedBody } from "../domain/capped-response-body.js";
import type { DomainLogger } from "../kit/observe/logger.js";
import {
  type Checkpoint,
  type ModelGroup,
  type ModelLocation,
  modelNameOf,
  readCheckpoint,
  readComponentModels,
  readZip,
} from "../models/index.js";
import { outputTypeToProto } from "../kit/transport/output-type-codec.js";

/** Fetches a published model's zip; undefined when the store has no such model. */
export type ArchiveFetcher = (location: ModelLocation) => Promise<Uint8Array | undefined>;

/** Reads a checkpoint as trainModels asks for it. */
export type CheckpointReader = (
  group: ModelGroup,
  trainerName: string,
  component: string,
  nodeType: number,
) => Promise<Checkpoint | undefined>;

/** GetModelArchive of the registry; NOT_FOUND means no such model. */
export function registryArchiveFetcher(registry: PeerClient<typeof RegistryServiceDefinition>): ArchiveFetcher {
  return async (location) => {
    const chunks: Uint8Array[] = [];
    try {
      const outputType = outputTypeToProto(location.outputType);
      for await (const message of registry.client.getModelArchive({ location: { ...location, outputType } }))
        chunks.push(message.archiveChunk);
    } catch (error) {
      if (isPeerNotFound(error)) return undefined;
      throw fromPeerError("registry", error);
    }
    return Buffer.concat(chunks);
  };
}

/**
 * The reference's get_url layout under a top URL: `<top>/<pipeline>/<source>/<OutputType>/<group>/
 * <model_name>.zip`; http(s) and file: URLs. A 404 or a missing file means no such model. A download is
 * read chunk by chunk within the process's upload budget, its announced size reserved at once: a store
 * serving a huge file is refused (RESOURCE_EXHAUSTED) instead of taking the trainer's memory.
 */
export function urlArchiveFetcher(topUrl: string, timeoutMs: number, budget: UploadBudget): ArchiveFetcher {
  const top = topUrl.replace(/\/+$/, "");
  return async (location) => {
    const url = new URL(
      [
        top,
        location.pipelineName,
        location.energySource,
        location.outputType,
        location.featureGroup,
        `${location.modelName}.zip`,
      ].join("/"),
    );
    if (url.protocol === "file:") {
      try {
        return await readFile(fileURLToPath(url));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw error;
      }
    }
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new UnavailableError("checkpoint URL", `${url.href}: ${(error as Error).message}`, { cause: error });
    }
    if (response.status === 404) return undefined;
    if (!response.ok) throw new UnavailableError("checkpoint URL", `${url.href} answered HTTP ${response.status}`);
    const reservation = budget.reserve("this checkpoint download");
    try {
      return await readCappedBody(response, url.href, {
        limitBytes: budget.capacityBytes,
        limitName: "upload-budget-bytes",
        reservation,
      });
    } finally {
      reservation.release();
    }
  };
}

/**
 * Local checkpoints first, then each remote store in turn. Archives are fetched once per model for the
 * reader's lifetime (one Train call asks once per component). An archive that is not in our JSON format
 * (e.g. the reference's pickles) is not continued, with a warning.
 */
export function createCheckpointReader(
  modelPath: string,
  remotes: readonly ArchiveFetcher[],
  logger: DomainLogger,
): CheckpointReader {
  const archives = new Map<string, Promise<ReturnType<typeof readComponentModels> | undefined>>();
  async function remoteModels(location: ModelLocation) {
    for (const fetch of remotes) {
      const zip = await fetch(location);
      if (zip === undefined) continue;
      try {
        const models = readComponentModels(readZip(zip, location.modelName), []);
        logger.info({ model: location.modelName, pipeline: location.pipelineName }, "continuing from the published model");
        return models;
      } catch (error) {
        logger.warn(
          { model: location.modelName, reason: (error as Error).message },
          "published model not continued: not a checkpoint in our format",
        );
        return undefined;
      }
    }
    return undefined;
  }
  return async (group, trainerName, component, nodeType) => {
    const local = await readCheckpoint(modelPath, group, trainerName, component, nodeType);
    if (local !== undefined || remotes.length === 0) return local;
    const location: ModelLocation = { ...group, modelName: modelNameOf(trainerName, nodeType) };
    const key = JSON.stringify(location);
    let models = archives.get(key);
    if (models === undefined) {
      models = remoteModels(location);
      archives.set(key, models);
    }
    const published = await models;
    const model = published?.components.find(([name]) => name === component)?.[1];
    if (published === undefined || model === undefined) return undefined;
    return {
      format_version: 1,
      trainer: trainerName,
      component,
      node_type: nodeType,
      features: [...published.features],
      scale: [...published.scaler.scale],
      model,
    };
  };
}
