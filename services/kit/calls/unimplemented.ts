import { NotImplementedError } from "../../domain/errors.js";

type GeneratedDefinition = { fullName: string; methods: Record<string, { name: string; responseStream: boolean }> };

/**
 * An implementation in which every RPC not in `implemented` answers UNIMPLEMENTED with a message
 * saying so: a service that is not built yet never returns a fake result.
 */
export function withUnimplemented<I extends object>(definition: GeneratedDefinition, implemented: Partial<I> = {}): I {
  const implementation: Record<string, unknown> = { ...implemented };
  for (const [key, method] of Object.entries(definition.methods)) {
    if (key in implementation) continue;
    const error = () => new NotImplementedError(`${definition.fullName}/${method.name} is not implemented yet in this version`);
    implementation[key] = method.responseStream
      ? async function* () {
          yield* [];
          throw error();
        }
      : async () => {
          throw error();
        };
  }
  return implementation as I;
}
