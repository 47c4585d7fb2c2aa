import { PipelineServiceDefinition } from "../generated/kepler/model/v1/pipeline_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the pipeline service at host:port. */
export function createPipelineClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof PipelineServiceDefinition> {
  return createPeerClient(PipelineServiceDefinition, address, connection, options);
}
