// How the gRPC tests observe a refusal: the ClientError a call fails with (and how long it took), and a
// server stream read to its end so that its error surfaces.
import { ClientError } from "nice-grpc";

/** The ClientError `call` fails with and the milliseconds until it did; throws if it succeeds or fails otherwise. */
export async function timedClientError(call: () => Promise<unknown>): Promise<{ error: ClientError; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    if (error instanceof ClientError) return { error, ms: performance.now() - started };
    throw error;
  }
  throw new Error("expected the call to fail with a gRPC status");
}

/** The ClientError `call` fails with; throws if it succeeds or fails otherwise. */
export async function clientError(call: () => Promise<unknown>): Promise<ClientError> {
  return (await timedClientError(call)).error;
}

/** Reads a server stream to its end (its messages are not needed, only its status). */
export async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) void _;
}
