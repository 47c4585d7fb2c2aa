// Thin gRPC glue for PipelineService: decode the request (stream), call the domain, stream its events.
import { measuredRun } from "./metrics.js";
import type { CallContext } from "nice-grpc-common";
import { InvalidInputError } from "../domain/errors.js";
import type {
  PipelineServiceImplementation,
  RunPipelineOptions,
  RunPipelineRequest,
  RunPipelineResponse,
} from "../generated/kepler/model/v1/pipeline_service.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import type { UploadBudget, UploadReservation } from "../kit/calls/upload-budget.js";
import type { OnlinePipelines } from "./domain/online-pipelines.js";
import { assertRunOptions } from "./domain/pipeline-options.js";
import type { PipelinePeers } from "./domain/pipeline-peers.js";
import { runPipeline } from "./domain/run-pipeline.js";
import { windowOf } from "./peer-messages.js";
import { getPipeline, listPipelines } from "./pipeline-catalog.js";
import { streamWhile } from "./response-queue.js";
import {
  decodeData,
  decodeIdleData,
  decodeRunOptions,
  onlineStatusMessage,
  progressMessage,
  resultMessage,
  summaryMessage,
} from "./run-messages.js";

/** What the pipeline service calls: its peers (domain view), the registry (catalog) and the online runs. */
export interface PipelineServiceDeps {
  readonly peers: PipelinePeers;
  readonly registry: PeerClient<typeof RegistryServiceDefinition>;
  readonly online: OnlinePipelines;
  /** The process's upload budget: a recording sent inline holds its bytes there until its run ends. */
  readonly uploadBudget: UploadBudget;
}

// The options, then the workload and idle response bytes (each concatenated; undefined when none came),
// their running size reserved in the upload budget (RESOURCE_EXHAUSTED with a retry hint past it).
async function readRunRequests(requests: AsyncIterable<RunPipelineRequest>, reservation: UploadReservation) {
  let options: RunPipelineOptions | undefined;
  const workload: Buffer[] = [];
  const idle: Buffer[] = [];
  let index = 0;
  let totalBytes = 0;
  for await (const request of requests) {
    const content = request.content;
    if (content?.$case === "responseChunk" || content?.$case === "idleResponseChunk")
      reservation.grow((totalBytes += content.value.byteLength));
    if (index === 0) {
      if (content?.$case !== "options")
        throw new InvalidInputError("requests[0].options", "the first message must carry the pipeline options");
      options = content.value;
    } else if (content?.$case === "responseChunk") workload.push(content.value);
    else if (content?.$case === "idleResponseChunk") idle.push(content.value);
    else
      throw new InvalidInputError(
        `requests[${index}]`,
        "only the first message carries options; the others carry response or idle response chunks",
      );
    index++;
  }
  if (options === undefined)
    throw new InvalidInputError("requests[0].options", "empty stream: the first message must carry the pipeline options");
  return {
    options,
    workload: workload.length === 0 ? undefined : Buffer.concat(workload),
    idle: idle.length === 0 ? undefined : Buffer.concat(idle),
  };
}

/** The PipelineService implementation. */
export function createPipelineService(deps: PipelineServiceDeps): PipelineServiceImplementation {
  async function* runOnce(
    { options, workload, idle }: Awaited<ReturnType<typeof readRunRequests>>,
    context: CallContext,
  ): AsyncGenerator<RunPipelineResponse> {
    const field = "requests[0].options";
    const runOptions = decodeRunOptions(
      options,
      decodeData(options, workload, field),
      decodeIdleData(options, idle, field),
      field,
    );
    yield* streamWhile<RunPipelineResponse>(async (push) =>
      summaryMessage(
        await measuredRun("once", () =>
          runPipeline(runOptions, {
            peers: deps.peers,
            onProgress: (event) => push(progressMessage(event)),
            onResult: (result) => push(resultMessage(result, runOptions.pipelineName)),
            signal: context.signal,
          }),
        ),
      ),
    );
  }

  return {
    async *runPipeline(requests: AsyncIterable<RunPipelineRequest>, context: CallContext): AsyncGenerator<RunPipelineResponse> {
      const reservation = deps.uploadBudget.reserve("this recording");
      try {
        yield* runOnce(await readRunRequests(requests, reservation), context);
      } finally {
        reservation.release();
      }
    },

    async startOnlinePipeline(request) {
      const options = request.options;
      if (options === undefined) throw new InvalidInputError("options", "required");
      if (options.window === undefined)
        throw new InvalidInputError("options.window", "required: an online pipeline reads a live Prometheus");
      const window = windowOf(options.window);
      const runOptions = decodeRunOptions(
        options,
        { kind: "window", window },
        decodeIdleData(options, undefined, "options"),
        "options",
      );
      assertRunOptions(runOptions);
      const { data: _, ...rest } = runOptions;
      const status = deps.online.start({
        options: { ...rest, window },
        intervalSeconds: request.intervalSeconds,
        lookbackSeconds: request.lookbackSeconds,
      });
      return { status: onlineStatusMessage(status) };
    },

    async stopOnlinePipeline(request) {
      return { status: onlineStatusMessage(await deps.online.stop(request.pipelineName)) };
    },

    async listPipelines() {
      return listPipelines(deps.registry, deps.online);
    },

    async getPipeline(request) {
      if (request.pipelineName === "") throw new InvalidInputError("pipeline_name", "required");
      return getPipeline(deps.registry, deps.online, request.pipelineName);
    },
  };
}
