// A stand-in pipeline service that records what a client sends to RunPipeline (decoded by the contract's
// own code) and answers with one summary; every other method fails.
import {
  PipelineServiceDefinition,
  type RunPipelineRequest,
  type RunPipelineSummary,
} from "../../../services/generated/kepler/model/v1/pipeline_service.js";
import { silentLogger } from "../../../services/kit/observe/logger.js";
import { startGrpcServer } from "../../../services/kit/transport/grpc-server.js";

export interface RecordingPipelineService {
  readonly port: number;
  /** The requests received, in order. */
  readonly received: RunPipelineRequest[];
  close(): Promise<void>;
}

export async function startRecordingPipelineService(summary: Partial<RunPipelineSummary>): Promise<RecordingPipelineService> {
  const received: RunPipelineRequest[] = [];
  const server = await startGrpcServer({
    serviceName: "pipeline-recorder",
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger(),
    services: [
      {
        definition: PipelineServiceDefinition,
        implementation: {
          // Only RunPipeline is called; the server needs a handler for every method.
          ...Object.fromEntries(
            Object.keys(PipelineServiceDefinition.methods).map((name) => [
              name,
              () => {
                throw new Error(`${name} is not recorded`);
              },
            ]),
          ),
          async *runPipeline(requests: AsyncIterable<RunPipelineRequest>) {
            for await (const request of requests) received.push(request);
            yield { content: { $case: "summary", value: summary } };
          },
        },
      },
    ],
  });
  return { port: server.port, received, close: () => server.close() };
}
