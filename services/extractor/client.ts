import { ExtractorServiceDefinition } from "../generated/kepler/model/v1/extractor_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the extractor service at host:port. */
export function createExtractorClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof ExtractorServiceDefinition> {
  return createPeerClient(ExtractorServiceDefinition, address, connection, options);
}
