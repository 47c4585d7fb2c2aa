import type { CompatServiceDefinition } from "nice-grpc";
import { InvalidInputError } from "../../domain/errors.js";
import type { WireCheck } from "./wire-bounds.js";

/**
 * A request whose bytes do not decode as the expected message. grpc-js would answer such a request
 * INTERNAL ("Error deserializing request"); we decode into this marker instead, and the call
 * middleware answers INVALID_ARGUMENT naming the message type, because the fault is the client's.
 */
export class MalformedRequest {
  constructor(
    readonly messageType: string,
    readonly reason: string,
  ) {}

  toError(): InvalidInputError {
    return new InvalidInputError("request", `not a valid ${this.messageType} message (${this.reason})`);
  }
}

/** A request refused from its encoded bytes (a list over its bound), never decoded. */
export class RefusedRequest {
  constructor(readonly error: InvalidInputError) {}

  toError(): InvalidInputError {
    return this.error;
  }
}

type MethodDefinition = {
  requestType: { decode(input: Uint8Array): unknown; fromPartial?: unknown; $type?: string };
  [key: string]: unknown;
};

/**
 * Returns a copy of a generated (ts-proto generic) service definition whose request decoding never
 * throws, and which first runs the RPC's wire check (by path), if any, on the encoded bytes.
 */
export function withTolerantDecoding<D extends CompatServiceDefinition>(
  definition: D,
  wireChecks: ReadonlyMap<string, WireCheck> = new Map(),
): D {
  const raw = definition as unknown as { name?: string; fullName?: string; methods?: Record<string, MethodDefinition> };
  if (raw.methods === undefined || raw.fullName === undefined) return definition;
  // buf STANDARD lint guarantees each RPC takes `<Rpc>Request` from the service's own package.
  const packageName = raw.fullName.slice(0, raw.fullName.lastIndexOf("."));
  const methods: Record<string, MethodDefinition> = {};
  for (const [name, method] of Object.entries(raw.methods)) {
    const requestType = method.requestType;
    const typeName = `${packageName}.${String(method.name ?? capitalize(name))}Request`;
    // Generic definitions carry no path; gRPC's is /<package>.<Service>/<Method>.
    const wireCheck = wireChecks.get(`/${raw.fullName}/${String(method.name ?? capitalize(name))}`);
    methods[name] = {
      ...method,
      requestType: {
        ...requestType,
        decode(input: Uint8Array): unknown {
          const refused = wireCheck?.(input);
          if (refused !== undefined) return new RefusedRequest(refused);
          try {
            return requestType.decode(input);
          } catch (error) {
            return new MalformedRequest(typeName, error instanceof Error ? error.message : String(error));
          }
        },
      },
    };
  }
  return { ...raw, methods } as unknown as D;
}

function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
