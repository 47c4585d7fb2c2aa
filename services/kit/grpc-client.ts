import { type Channel, type CompatServiceDefinition, type Client, createChannel, createClient } from "nice-grpc";
import { DEFAULT_MESSAGE_LIMITS, messageLimitOptions } from "./message-limits.js";

/** A typed client for a peer plus the channel to close when done. */
export interface PeerClient<D extends CompatServiceDefinition> {
  readonly client: Client<D>;
  readonly channel: Channel;
  close(): void;
}

/** Creates a typed client for `definition` at `address` (host:port) with our message limits. */
export function createPeerClient<D extends CompatServiceDefinition>(definition: D, address: string): PeerClient<D> {
  const channel = createChannel(address, undefined, messageLimitOptions(DEFAULT_MESSAGE_LIMITS));
  return { client: createClient(definition, channel), channel, close: () => channel.close() };
}
