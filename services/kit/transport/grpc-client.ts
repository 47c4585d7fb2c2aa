import { type Channel, type CompatServiceDefinition, type Client, createChannel, createClientFactory } from "nice-grpc";
import { createDeadlineMiddleware, DEFAULT_PEER_DEADLINE_MS, type DeadlineCallOptions } from "../calls/call-deadline.js";
import { errorDetailsClientMiddleware } from "nice-grpc-error-details";
import { withInProcessCalls } from "./in-process/in-process-calls.js";
import { DEFAULT_MESSAGE_LIMITS, messageLimitOptions } from "./message-limits.js";
import { PLAINTEXT_PEER, type PeerConnection, bearerTokenMiddleware } from "../security/peer-connection.js";
import { tracePropagationMiddleware } from "../observe/tracing.js";

/** A typed client for a peer plus the channel to close when done. */
export interface PeerClient<D extends CompatServiceDefinition> {
  readonly client: Client<D, DeadlineCallOptions>;
  readonly channel: Channel;
  close(): void;
}

/** How a peer client bounds its calls. */
export interface PeerClientOptions {
  /** Deadline of each unary call (and of `boundedStreams`), in ms; DEFAULT_PEER_DEADLINE_MS when omitted. */
  deadlineMs?: number;
  /** Server-streaming methods (paths) that get the deadline too, e.g. a bounded download. */
  boundedStreams?: readonly string[];
}

/**
 * Creates a typed client for `definition` at `address` (host:port) with our message limits, the
 * connection's credentials (TLS when configured), its bearer token and a deadline on every bounded call.
 */
export function createPeerClient<D extends CompatServiceDefinition>(
  definition: D,
  address: string,
  connection: PeerConnection = PLAINTEXT_PEER,
  options: PeerClientOptions = {},
): PeerClient<D> {
  const { credentials, options: channelOptions, secure } = connection.security;
  const limits = { ...messageLimitOptions(DEFAULT_MESSAGE_LIMITS), ...channelOptions };
  const wire = createChannel(address, credentials, limits);
  // A plaintext peer served by this process is called in-process (in-process-calls.ts).
  const channel = secure ? wire : withInProcessCalls(wire, limits);
  const client = createClientFactory()
    .use(tracePropagationMiddleware())
    .use(bearerTokenMiddleware(connection.token))
    .use(createDeadlineMiddleware(options.deadlineMs ?? DEFAULT_PEER_DEADLINE_MS, options.boundedStreams))
    // A failure's structured details (field violations, ...) for the peer-error table (calls/peer-errors.ts).
    .use(errorDetailsClientMiddleware)
    .create(definition, channel);
  return { client, channel, close: () => channel.close() };
}
