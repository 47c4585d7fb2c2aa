import { IsolatorServiceDefinition } from "../generated/kepler/model/v1/isolator_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the isolator service at host:port. */
export function createIsolatorClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof IsolatorServiceDefinition> {
  return createPeerClient(IsolatorServiceDefinition, address, connection, options);
}
