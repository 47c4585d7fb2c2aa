import { type Channel, type CompatServiceDefinition, type Client, createChannel, createClientFactory } from "nice-grpc";
import { DEFAULT_MESSAGE_LIMITS, messageLimitOptions } from "./message-limits.js";
import { PLAINTEXT_PEER, type PeerConnection, bearerTokenMiddleware } from "./peer-connection.js";

/** A typed client for a peer plus the channel to close when done. */
export interface PeerClient<D extends CompatServiceDefinition> {
  readonly client: Client<D>;
  readonly channel: Channel;
  close(): void;
}

/**
 * Creates a typed client for `definition` at `address` (host:port) with our message limits, the
 * connection's credentials (TLS when configured) and its bearer token on every call.
 */
export function createPeerClient<D extends CompatServiceDefinition>(
  definition: D,
  address: string,
  connection: PeerConnection = PLAINTEXT_PEER,
): PeerClient<D> {
  const { credentials, options } = connection.security;
  const channel = createChannel(address, credentials, { ...messageLimitOptions(DEFAULT_MESSAGE_LIMITS), ...options });
  const client = createClientFactory().use(bearerTokenMiddleware(connection.token)).create(definition, channel);
  return { client, channel, close: () => channel.close() };
}
