// Structured error details (google.rpc.Status in the `grpc-status-details-bin` trailer, the format
// nice-grpc-error-details reads): a field violation travels as BadRequest, a missing thing as
// ResourceInfo, a precondition as PreconditionFailure, an overload's retry hint as RetryInfo, so a peer maps them back without parsing text.
import { Any, BadRequest, PreconditionFailure, ResourceInfo, RetryInfo } from "nice-grpc-error-details";
import { Status as RpcStatus } from "nice-grpc-error-details/lib/proto/google/rpc/status.js";
import type { CallFailure } from "./error-table.js";

/** The trailer that carries the details. */
export const STATUS_DETAILS_TRAILER = "grpc-status-details-bin";

const TYPE_PREFIX = "type.googleapis.com/";

// The trailer shares HTTP/2's header limit with the status message (grpc-status.ts): facts quoting
// client input are cut, so the details never grow with it.
const MAX_FACT_CHARS = 512;
const cut = (text: string) => (text.length > MAX_FACT_CHARS ? `${text.slice(0, MAX_FACT_CHARS - 3)}...` : text);

// A refusal's details (only a retry hint) are the same for every excess call of a flood: encoded once.
const retryOnly = new Map<string, Uint8Array>();

/** The encoded google.rpc.Status for a failure with facts, else undefined. */
export function statusDetailsOf(failure: CallFailure, code: number): Uint8Array | undefined {
  const facts = failure.facts;
  if (facts === undefined) return undefined;
  if (facts.retryAfterMs !== undefined && Object.keys(facts).length === 1) {
    const key = `${code}:${facts.retryAfterMs}`;
    let encoded = retryOnly.get(key);
    if (encoded === undefined) {
      encoded = encodeDetails(facts, code);
      if (retryOnly.size < 64) retryOnly.set(key, encoded);
    }
    return encoded;
  }
  return encodeDetails(facts, code);
}

function encodeDetails(facts: NonNullable<CallFailure["facts"]>, code: number): Uint8Array {
  const details: Any[] = [];
  if (facts.field !== undefined) {
    const value = BadRequest.fromPartial({
      fieldViolations: [{ field: cut(facts.field.path), description: cut(facts.field.reason) }],
    });
    details.push(Any.fromPartial({ typeUrl: TYPE_PREFIX + BadRequest.$type, value: BadRequest.encode(value).finish() }));
  }
  if (facts.missing !== undefined) {
    const value = ResourceInfo.fromPartial({ resourceName: cut(facts.missing) });
    details.push(Any.fromPartial({ typeUrl: TYPE_PREFIX + ResourceInfo.$type, value: ResourceInfo.encode(value).finish() }));
  }
  if (facts.precondition !== undefined) {
    const value = PreconditionFailure.fromPartial({
      violations: [{ type: "STATE", subject: cut(facts.precondition) }],
    });
    details.push(
      Any.fromPartial({ typeUrl: TYPE_PREFIX + PreconditionFailure.$type, value: PreconditionFailure.encode(value).finish() }),
    );
  }
  if (facts.retryAfterMs !== undefined) {
    const ms = facts.retryAfterMs;
    const value = RetryInfo.fromPartial({ retryDelay: { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 } });
    details.push(Any.fromPartial({ typeUrl: TYPE_PREFIX + RetryInfo.$type, value: RetryInfo.encode(value).finish() }));
  }
  // The message travels in grpc-message already.
  return RpcStatus.encode(RpcStatus.fromPartial({ code, details })).finish();
}
