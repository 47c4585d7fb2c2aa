import type { CallContext, ServerMiddlewareCall } from "nice-grpc";
import type { Logger } from "../observe/logger.js";
import { MalformedRequest, RefusedRequest } from "../checks/malformed-request.js";
import type { RequestCheck } from "../checks/request-bounds.js";
import { toServerError } from "./status-mapping.js";
import { activeTraceId } from "../observe/tracing.js";

let lastRequestId = 0;

/** A process-wide number for the next call, so its log lines can be told apart. */
export function nextRequestId(): number {
  return ++lastRequestId;
}

/**
 * Wraps every call: binds a child logger (rpc, request id), turns undecodable requests and requests
 * over their field bounds (`checks`, by RPC path) into INVALID_ARGUMENT before the implementation
 * sees them, and maps whatever the implementation throws to a gRPC status, logging it once.
 */
export function createCallMiddleware(logger: Logger, checks: ReadonlyMap<string, RequestCheck> = new Map()) {
  return async function* callMiddleware<Request, Response>(
    call: ServerMiddlewareCall<Request, Response>,
    context: CallContext,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const traceId = activeTraceId();
    const callLogger = logger.child({
      rpc: call.method.path,
      requestId: nextRequestId(),
      ...(traceId === undefined ? {} : { traceId }),
    });
    const startedMs = performance.now();
    const check = checks.get(call.method.path) ?? acceptAny;
    try {
      const request = call.method.requestStream
        ? (rejectMalformedStream(call.request as AsyncIterable<unknown>, check) as Request)
        : rejectMalformed(call.request, check);
      const result = yield* call.next(request, context);
      callLogger.debug({ ms: Math.round(performance.now() - startedMs) }, "call completed");
      return result;
    } catch (error) {
      throw toServerError(error, callLogger);
    }
  };
}

/** Accepts any request: for RPCs without field bounds. */
export function acceptAny(): void {}

/** The request, or InvalidInputError when it did not decode, broke a wire bound or a field bound. */
export function rejectMalformed<T>(request: T, check: RequestCheck): T {
  if (request instanceof MalformedRequest || request instanceof RefusedRequest) throw request.toError();
  check(request);
  return request;
}

async function* rejectMalformedStream(requests: AsyncIterable<unknown>, check: RequestCheck): AsyncIterable<unknown> {
  for await (const request of requests) yield rejectMalformed(request, check);
}
