// The embedded default: on a model folder with no models, train a small pipeline from the recorded Kepler
// data bundled in default-data/, through the pipeline service's RunPipeline (the same path an operator's
// `kepler-model pipeline run` takes), so a fresh `npm start` answers Estimate at once.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { isAbortError } from "abort-controller-x";
import type { RunPipelineRequest, RunPipelineSummary } from "../generated/kepler/model/v1/pipeline_service.js";
import { RunPipelineOptions } from "../generated/kepler/model/v1/pipeline_service.js";
import type { TrainerResult } from "../generated/kepler/model/v1/trainer_service.js";
import { IsolatorKind, type ProgressEvent } from "../generated/kepler/model/v1/types.js";
import { assetUrl } from "../kit/files/asset-url.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";
import { createPipelineClient } from "../pipeline/client.js";
import { createRegistryClient } from "../registry/client.js";
import { removeUnfinishedDefaultTraining } from "./unfinished-default-training.js";

/** The recorded Kepler run the default models are trained on (provenance: default-data/README.md). */
export const DEFAULT_DATASET_PATH = fileURLToPath(
  assetUrl(import.meta.url, "./default-data/coremark-2023-09-28.json.gz", "coremark-2023-09-28.json.gz"),
);

/**
 * What the default pipeline trains: both of the collector's energy sources, every feature group the
 * recording supports, AbsPower (node) and DynPower (process) models, with the two trainers that fit in well
 * under a second on this data and write the weight.json Kepler's own regressor reads.
 */
export const DEFAULT_PIPELINE_OPTIONS = {
  pipelineName: "default",
  energySources: ["rapl-sysfs", "acpi"],
  trainerNames: ["LinearRegressionTrainer", "SGDRegressorTrainer"],
  isolator: "min",
} as const;

/** One step of the default training, for the launcher to print. */
export type DefaultModelsEvent =
  { readonly kind: "progress"; readonly progress: ProgressEvent } | { readonly kind: "result"; readonly result: TrainerResult };

/** What ensureDefaultModels did. */
export type DefaultModelsOutcome =
  | { readonly status: "skipped"; readonly existingModelCount: number }
  | { readonly status: "trained"; readonly summary: RunPipelineSummary; readonly elapsedMs: number }
  | { readonly status: "cancelled" };

export interface DefaultModelsOptions {
  readonly registryAddress: string;
  readonly pipelineAddress: string;
  /** TLS and bearer token for the calls; default plaintext without a token. */
  readonly connection?: PeerConnection;
  /** The saved Prometheus response to train on; default DEFAULT_DATASET_PATH. */
  readonly datasetPath?: string;
  /**
   * Called once the registry turned out empty, before training starts, with the number of models of an
   * unfinished earlier default training that were removed first (unfinished-default-training.ts).
   */
  readonly onEmpty?: (removedUnfinishedCount: number) => void;
  readonly onEvent?: (event: DefaultModelsEvent) => void;
  /** Aborting cancels the run (e.g. SIGTERM while training); the outcome is then `cancelled`. */
  readonly signal?: AbortSignal;
}

/**
 * Trains the default pipeline when the registry holds no model at all, or only the models of a default
 * training that did not finish (removed first, so the set is trained whole); leaves any other model folder
 * alone. Talks to the registry and pipeline services through their gRPC clients only.
 */
export async function ensureDefaultModels(options: DefaultModelsOptions): Promise<DefaultModelsOutcome> {
  const registry = createRegistryClient(options.registryAddress, options.connection);
  const pipeline = createPipelineClient(options.pipelineAddress, options.connection);
  const signal = options.signal;
  try {
    const removed = await removeUnfinishedDefaultTraining(registry.client, DEFAULT_PIPELINE_OPTIONS, signal);
    const existing = await registry.client.listModels({ pageSize: 1 }, { signal });
    if (existing.models.length > 0) return { status: "skipped", existingModelCount: existing.models.length };
    options.onEmpty?.(removed);
    const startedMs = performance.now();
    const response = await promisify(gunzip)(await readFile(options.datasetPath ?? DEFAULT_DATASET_PATH));
    let summary: RunPipelineSummary | undefined;
    for await (const message of pipeline.client.runPipeline(runRequests(response), { signal })) {
      const content = message.content;
      if (content?.$case === "progress") options.onEvent?.({ kind: "progress", progress: content.value });
      else if (content?.$case === "result") options.onEvent?.({ kind: "result", result: content.value });
      else if (content?.$case === "summary") summary = content.value;
    }
    if (summary === undefined) throw new Error("the pipeline service ended RunPipeline without a summary");
    return { status: "trained", summary, elapsedMs: performance.now() - startedMs };
  } catch (error) {
    if (signal?.aborted === true && isAbortError(error)) return { status: "cancelled" };
    throw error;
  } finally {
    registry.close();
    pipeline.close();
  }
}

async function* runRequests(response: Buffer): AsyncGenerator<RunPipelineRequest> {
  const { pipelineName, energySources, trainerNames } = DEFAULT_PIPELINE_OPTIONS;
  const options = RunPipelineOptions.fromPartial({
    pipelineName,
    energySources: [...energySources],
    isolator: IsolatorKind.ISOLATOR_KIND_MIN,
    absTrainerNames: [...trainerNames],
    dynTrainerNames: [...trainerNames],
  });
  yield { content: { $case: "options", value: options } };
  for (const chunk of byteChunks(response)) yield { content: { $case: "responseChunk", value: chunk } };
}
