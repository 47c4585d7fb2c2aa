/**
 * Message-size limits, set deliberately instead of grpc-js's 4 MiB default. Bulk data (tables,
 * Prometheus responses, archives) is streamed in chunks of at most CHUNK_BYTES, so a single message
 * never needs to be large; the limit leaves headroom for a chunk plus its envelope.
 */
export const CHUNK_BYTES = 1024 * 1024;

export interface MessageLimits {
  /** Largest message the server accepts, in bytes. */
  maxReceiveBytes: number;
  /** Largest message the server sends, in bytes. */
  maxSendBytes: number;
}

export const DEFAULT_MESSAGE_LIMITS: MessageLimits = { maxReceiveBytes: 16 * 1024 * 1024, maxSendBytes: 16 * 1024 * 1024 };

/** grpc-js channel options for the limits (server or client side). */
export function messageLimitOptions(limits: MessageLimits): Record<string, number> {
  return {
    "grpc.max_receive_message_length": limits.maxReceiveBytes,
    "grpc.max_send_message_length": limits.maxSendBytes,
  };
}
