import { isAbortError } from "abort-controller-x";
import { type CallOptions, ClientError, type ClientMiddlewareCall, Status } from "nice-grpc";

/** Default bound on a unary call to a peer: one wedged peer must not hang its callers forever. */
export const DEFAULT_PEER_DEADLINE_MS = 30_000;

/** Extra per-call option: this call's deadline in ms, overriding the client's default (0: none). */
export interface DeadlineCallOptions {
  deadlineMs?: number;
}

/**
 * A client middleware giving every unary call (and the server streams named in `boundedStreams`, by
 * method path) a deadline of `defaultMs`, answered as DEADLINE_EXCEEDED. Streams that may run for
 * long (uploads, pipeline runs, watches) are left to their callers.
 */
export function createDeadlineMiddleware(defaultMs: number, boundedStreams: readonly string[] = []) {
  return async function* deadlineMiddleware<Request, Response>(
    call: ClientMiddlewareCall<Request, Response>,
    options: CallOptions & DeadlineCallOptions,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const { deadlineMs: perCall, ...rest } = options;
    const bounded = !call.requestStream && (!call.responseStream || boundedStreams.includes(call.method.path));
    const deadlineMs = perCall ?? (bounded ? defaultMs : 0);
    if (!(deadlineMs > 0)) return yield* call.next(call.request, rest);
    const controller = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      controller.abort();
    }, deadlineMs);
    const forward = () => controller.abort();
    if (rest.signal?.aborted) controller.abort();
    rest.signal?.addEventListener("abort", forward);
    try {
      return yield* call.next(call.request, { ...rest, signal: controller.signal });
    } catch (error) {
      if (expired && isAbortError(error))
        throw new ClientError(call.method.path, Status.DEADLINE_EXCEEDED, `no answer within ${deadlineMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
      rest.signal?.removeEventListener("abort", forward);
    }
  };
}
