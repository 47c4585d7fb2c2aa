import { EstimatorServiceDefinition } from "../generated/kepler/model/v1/estimator_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the estimator service at host:port. */
export function createEstimatorClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof EstimatorServiceDefinition> {
  return createPeerClient(EstimatorServiceDefinition, address, connection, options);
}
