import { TrainerServiceDefinition } from "../generated/kepler/model/v1/trainer_service.js";
import { type PeerClient, type PeerClientOptions, createPeerClient } from "../kit/transport/grpc-client.js";
import type { PeerConnection } from "../kit/security/peer-connection.js";

/** A typed client for the trainer service at host:port. */
export function createTrainerClient(
  address: string,
  connection?: PeerConnection,
  options: PeerClientOptions = {},
): PeerClient<typeof TrainerServiceDefinition> {
  return createPeerClient(TrainerServiceDefinition, address, connection, options);
}
