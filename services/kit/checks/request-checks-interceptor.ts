// The request-checks step of the call pipeline: a request that did not decode, broke a wire bound or a
// field bound (the RPC's compiled checks, by path) is refused as invalid input before the handler sees it.
import type { CallInterceptor } from "../calls/call-pipeline.js";
import { MalformedRequest, RefusedRequest } from "./malformed-request.js";
import type { RequestCheck } from "./request-bounds.js";

/** Accepts any request: for RPCs without field bounds. */
function acceptAny(): void {}

/** Throws InvalidInputError when the request did not decode, broke a wire bound or a field bound. */
function rejectMalformed(request: unknown, check: RequestCheck): void {
  if (request instanceof MalformedRequest || request instanceof RefusedRequest) throw request.toError();
  check(request);
}

export function requestChecksInterceptor(checks: ReadonlyMap<string, RequestCheck>): CallInterceptor {
  return {
    request(call, request) {
      rejectMalformed(request, checks.get(call.label) ?? acceptAny);
    },
  };
}
