// RunPipeline over gRPC as the end-to-end tests call it: the options message, then the data (a recorded
// Prometheus response and idle data, when given), keeping every progress event, result and the summary.
import { ClientError, Status } from "nice-grpc";
import { expect } from "vitest";
import type { ModelMetadata } from "../../services/generated/kepler/model/v1/model.js";
import {
  type RunPipelineOptions,
  RunPipelineOptions as RunPipelineOptionsMessage,
  type RunPipelineSummary,
} from "../../services/generated/kepler/model/v1/pipeline_service.js";
import { type TrainerResult, TrainOutcome } from "../../services/generated/kepler/model/v1/trainer_service.js";
import type { ProgressEvent } from "../../services/generated/kepler/model/v1/types.js";
import { createPipelineClient } from "../../services/pipeline/client.js";
import { createRegistryClient } from "../../services/registry/client.js";
import type { E2eMesh } from "./e2e-mesh.js";

export interface PipelineRun {
  progress: ProgressEvent[];
  results: TrainerResult[];
  summary: RunPipelineSummary;
}

/** What a run reads besides a live window: a saved Prometheus response and the idle one. */
export interface PipelineData {
  readonly response?: string | Buffer;
  readonly idle?: string | Buffer;
}

/** Runs one pipeline on the mesh's pipeline service and collects its stream. */
export async function runPipelineStream(
  mesh: E2eMesh,
  options: Partial<RunPipelineOptions>,
  data: PipelineData = {},
): Promise<PipelineRun> {
  const pipeline = createPipelineClient(mesh.address("pipeline"));
  try {
    const run: Partial<PipelineRun> & Pick<PipelineRun, "progress" | "results"> = { progress: [], results: [] };
    const requests = (async function* () {
      yield { content: { $case: "options" as const, value: RunPipelineOptionsMessage.fromPartial(options) } };
      if (data.response !== undefined) yield { content: { $case: "responseChunk" as const, value: Buffer.from(data.response) } };
      if (data.idle !== undefined) yield { content: { $case: "idleResponseChunk" as const, value: Buffer.from(data.idle) } };
    })();
    for await (const message of pipeline.client.runPipeline(requests)) {
      const content = message.content;
      if (content?.$case === "progress") run.progress.push(content.value);
      else if (content?.$case === "result") run.results.push(content.value);
      else if (content?.$case === "summary") run.summary = content.value;
    }
    return run as PipelineRun;
  } finally {
    pipeline.close();
  }
}

/** The status name and details of a run that must fail. */
export async function runPipelineFailure(
  mesh: E2eMesh,
  options: Partial<RunPipelineOptions>,
  response: string,
): Promise<[string, string]> {
  const error = await runPipelineStream(mesh, options, { response }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientError);
  return [Status[(error as ClientError).code]!, (error as ClientError).details];
}

/** One line per result that did not succeed (empty when all trained). */
export const failedResults = (run: PipelineRun) =>
  run.results
    .filter((r) => r.outcome !== TrainOutcome.TRAIN_OUTCOME_SUCCEEDED)
    .map((r) => `${r.featureGroup}/${r.outputType}/${r.trainerName}: ${r.failureReason}`);

/** The models the mesh's registry holds for one pipeline. */
export async function listPipelineModels(mesh: E2eMesh, pipelineName: string): Promise<ModelMetadata[]> {
  const registry = createRegistryClient(mesh.address("registry"));
  try {
    return (await registry.client.listModels({ pipelineName })).models;
  } finally {
    registry.close();
  }
}
