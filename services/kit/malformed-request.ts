import type { CompatServiceDefinition } from "nice-grpc";
import { InvalidInputError } from "../domain/errors.js";

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

type MethodDefinition = {
  requestType: { decode(input: Uint8Array): unknown; fromPartial?: unknown; $type?: string };
  [key: string]: unknown;
};

/** Returns a copy of a generated (ts-proto generic) service definition whose request decoding never throws. */
export function withTolerantDecoding<D extends CompatServiceDefinition>(definition: D): D {
  const raw = definition as unknown as { name?: string; fullName?: string; methods?: Record<string, MethodDefinition> };
  if (raw.methods === undefined || raw.fullName === undefined) return definition;
  // buf STANDARD lint guarantees each RPC takes `<Rpc>Request` from the service's own package.
  const packageName = raw.fullName.slice(0, raw.fullName.lastIndexOf("."));
  const methods: Record<string, MethodDefinition> = {};
  for (const [name, method] of Object.entries(raw.methods)) {
    const requestType = method.requestType;
    const typeName = `${packageName}.${String(method.name ?? capitalize(name))}Request`;
    methods[name] = {
      ...method,
      requestType: {
        ...requestType,
        decode(input: Uint8Array): unknown {
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
