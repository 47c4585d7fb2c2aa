import { readdirSync } from "node:fs";
import { HealthDefinition } from "nice-grpc-server-health";
import { ServerReflectionService } from "nice-grpc-server-reflection";

/** One RPC of a generated service definition: what a generic caller needs to invoke it. */
export interface RpcMethod {
  /** Full path, e.g. /kepler.model.v1.RegistryService/PublishModel. */
  readonly path: string;
  /** The definition's key for the method (camelCase), as the nice-grpc client names it. */
  readonly key: string;
  readonly service: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any generated definition.
  readonly definition: any;
}

const GENERATED = new URL("../../services/generated/kepler/model/v1/", import.meta.url);

/**
 * Every RPC our servers host, read from the generated definitions themselves: each `*_service.ts` file's
 * `*ServiceDefinition` exports (so a new RPC or a new service file is picked up), plus health and reflection.
 */
export async function hostedRpcs(): Promise<RpcMethod[]> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- definitions of every shape.
  const definitions: { fullName: string; methods: Record<string, any> }[] = [];
  for (const file of readdirSync(GENERATED).filter((name) => name.endsWith("_service.ts"))) {
    const module = (await import(new URL(file, GENERATED).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (name.endsWith("ServiceDefinition")) definitions.push(value as (typeof definitions)[number]);
    }
  }
  const rpcs: RpcMethod[] = definitions.flatMap((definition) =>
    Object.entries(definition.methods).map(([key, method]) => ({
      path: `/${definition.fullName}/${method.name as string}`,
      key,
      service: definition.fullName,
      requestStream: method.requestStream as boolean,
      responseStream: method.responseStream as boolean,
      definition,
    })),
  );
  for (const [key, method] of Object.entries(HealthDefinition.methods)) {
    const path = `/${HealthDefinition.fullName}/${method.name}`;
    rpcs.push({ path, key, service: HealthDefinition.fullName, ...streams(method), definition: HealthDefinition });
  }
  for (const [key, method] of Object.entries(ServerReflectionService)) {
    for (const path of [method.path, method.path.replace(".v1.", ".v1alpha.")]) {
      rpcs.push({ path, key, service: path.split("/")[1]!, ...streams(method), definition: ServerReflectionService });
    }
  }
  return rpcs;
}

function streams(method: { requestStream: boolean; responseStream: boolean }) {
  return { requestStream: method.requestStream, responseStream: method.responseStream };
}
