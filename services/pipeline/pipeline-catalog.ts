// ListPipelines and GetPipeline: the registry's stored pipelines joined with this service's online runs.
import { NotFoundError } from "../domain/errors.js";
import type { NodeType, PipelineInfo } from "../generated/kepler/model/v1/model.js";
import type { GetPipelineResponse, ListPipelinesResponse } from "../generated/kepler/model/v1/pipeline_service.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import type { OnlinePipelines } from "./domain/online-pipelines.js";
import { callPeer, isPeerNotFound } from "../kit/calls/peer-errors.js";
import { onlineStatusMessage } from "./run-messages.js";

/** The registry's pipelines and every online pipeline of this service. */
export async function listPipelines(
  registry: PeerClient<typeof RegistryServiceDefinition>,
  online: OnlinePipelines,
): Promise<ListPipelinesResponse> {
  const { pipelines } = await callPeer("registry", () => registry.client.listPipelineMetadata({ pipelineNames: [] }));
  return { pipelines, onlinePipelines: online.list().map(onlineStatusMessage) };
}

/** One pipeline: metadata, node types and online state; NOT_FOUND when neither the registry nor this service knows it. */
export async function getPipeline(
  registry: PeerClient<typeof RegistryServiceDefinition>,
  online: OnlinePipelines,
  pipelineName: string,
): Promise<GetPipelineResponse> {
  const { pipelines } = await callPeer("registry", () => registry.client.listPipelineMetadata({ pipelineNames: [pipelineName] }));
  const pipeline: PipelineInfo | undefined = pipelines.find((p) => p.pipelineName === pipelineName);
  const status = online.get(pipelineName);
  if (pipeline === undefined && status === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
  let nodeTypes: NodeType[] = [];
  if (pipeline !== undefined) {
    nodeTypes = await callPeer("registry", async () => {
      try {
        return (await registry.client.listNodeTypes({ pipelineName })).nodeTypes;
      } catch (error) {
        if (isPeerNotFound(error)) return [];
        throw error;
      }
    });
  }
  return {
    pipeline: pipeline ?? {
      pipelineName,
      metadataJson: "",
      energySources: [],
      modelCount: 0,
      nodeTypeCount: 0,
    },
    nodeTypes,
    online: status === undefined ? undefined : onlineStatusMessage(status),
  };
}
