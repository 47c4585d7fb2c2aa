// Thin gRPC glue for TrainerService: decode the request stream, call trainModels, stream its events.
import { assertEnergySource } from "../domain/energy-sources.js";
import { InvalidInputError } from "../domain/errors.js";
import type { CallContext } from "nice-grpc-common";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import type { TrainerServiceImplementation, TrainRequest, TrainResponse } from "../generated/kepler/model/v1/trainer_service.js";
import { collectChunks } from "../kit/transport/table-codec.js";
import type { DomainLogger } from "../kit/observe/logger.js";
import { type ModelArchive, publishModelArchive, writeCheckpoint } from "../models/index.js";
import type { ComponentFitter } from "./domain/fit-components.js";
import { trainModels } from "./domain/train-models.js";
import { listTrainers } from "./domain/trainer-registry.js";
import { createEventQueue } from "./event-queue.js";
import { type ArchiveFetcher, createCheckpointReader } from "./remote-checkpoints.js";
import { progressMessage, resultMessage, summaryMessage, toTrainModelsRequest } from "./train-messages.js";

/**
 * What the trainer service needs: the local model folder (checkpoints, and archives when no registry is
 * configured), where to publish archives (the registry; unset means the local folder), and a logger.
 */
export interface TrainerServiceDeps {
  modelPath: string;
  publishModel?: (archive: ModelArchive) => Promise<void>;
  /** Where a continued run looks for a published model when the local folder has no checkpoint. */
  checkpointStores?: readonly ArchiveFetcher[];
  /** Runs the fits (a worker pool); on the main thread when unset. */
  fitter?: ComponentFitter;
  logger: DomainLogger;
}

// The messages after the options: each must be a table chunk.
async function* tableChunks(rest: AsyncIterator<TrainRequest>): AsyncGenerator<TableChunk> {
  let index = 1;
  while (true) {
    const next = await rest.next();
    if (next.done === true) return;
    const content = next.value.content;
    if (content?.$case !== "chunk")
      throw new InvalidInputError(
        `requests[${index}]`,
        "only the first message carries options; the others must be table chunks",
      );
    yield content.value;
    index++;
  }
}

/** The TrainerService implementation. */
export function createTrainerService(deps: TrainerServiceDeps): TrainerServiceImplementation {
  return {
    async *train(requests: AsyncIterable<TrainRequest>, context: CallContext): AsyncGenerator<TrainResponse> {
      const iterator = requests[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done === true || first.value.content?.$case !== "options") {
        throw new InvalidInputError("requests[0].options", "the first message must carry the training options");
      }
      const options = first.value.content.value;
      const table = await collectChunks(tableChunks(iterator), "requests.chunk");
      const request = toTrainModelsRequest(options, table);
      const energySource = assertEnergySource(request.energySource, "options.energy_source");
      const queue = createEventQueue<TrainResponse>();
      trainModels(request, {
        publishModel:
          deps.publishModel ??
          (async (archive) => {
            await publishModelArchive(deps.modelPath, archive);
          }),
        readCheckpoint: createCheckpointReader(deps.modelPath, deps.checkpointStores ?? [], deps.logger),
        writeCheckpoint: async (group, checkpoint) => {
          await writeCheckpoint(deps.modelPath, group, checkpoint);
        },
        onProgress: (event) => queue.push(progressMessage(event)),
        onResult: (result) => queue.push(resultMessage(result, request, energySource)),
        logger: deps.logger,
        fitter: deps.fitter,
        signal: context.signal,
      }).then(
        (result) => {
          queue.push(summaryMessage(result));
          queue.end();
        },
        (error: unknown) => queue.fail(error),
      );
      yield* queue;
    },
    async listTrainers() {
      return {
        trainers: listTrainers().map((t) => ({
          trainerName: t.name,
          modelClass: t.modelClass,
          weightCapable: t.weightCapable,
          description: t.description,
        })),
      };
    },
  };
}
