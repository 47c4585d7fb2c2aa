import type { CallContext, ServerMiddlewareCall } from "nice-grpc";
import type { Logger } from "./logger.js";
import { MalformedRequest } from "./malformed-request.js";
import { toServerError } from "./status-mapping.js";

let nextRequestId = 1;

/**
 * Wraps every call: binds a child logger (rpc, request id), turns undecodable requests into
 * INVALID_ARGUMENT, and maps whatever the implementation throws to a gRPC status, logging it once.
 */
export function createCallMiddleware(logger: Logger) {
  return async function* callMiddleware<Request, Response>(
    call: ServerMiddlewareCall<Request, Response>,
    context: CallContext,
  ): AsyncGenerator<Response, Response | void, undefined> {
    const callLogger = logger.child({ rpc: call.method.path, requestId: nextRequestId++ });
    const startedMs = performance.now();
    try {
      const request = call.method.requestStream
        ? (rejectMalformedStream(call.request as AsyncIterable<unknown>) as Request)
        : rejectMalformed(call.request);
      const result = yield* call.next(request, context);
      callLogger.debug({ ms: Math.round(performance.now() - startedMs) }, "call completed");
      return result;
    } catch (error) {
      throw toServerError(error, callLogger);
    }
  };
}

function rejectMalformed<T>(request: T): T {
  if (request instanceof MalformedRequest) throw request.toError();
  return request;
}

async function* rejectMalformedStream(requests: AsyncIterable<unknown>): AsyncIterable<unknown> {
  for await (const request of requests) yield rejectMalformed(request);
}
