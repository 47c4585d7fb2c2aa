import { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the registry service at host:port. */
export function createRegistryClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof RegistryServiceDefinition> {
  return createPeerClient(RegistryServiceDefinition, address, connection, options);
}
