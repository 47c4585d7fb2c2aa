import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Server } from "nice-grpc";
import { assetUrl } from "../files/asset-url.js";

const HEALTH_SERVICE = "grpc.health.v1.Health";
const V1_SERVICE = "grpc.reflection.v1.ServerReflection";
const V1_PATH = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
const V1ALPHA_PATH = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

let descriptorSet: Uint8Array | undefined;

/** The FileDescriptorSet built by `npm run build:proto` (our protos plus grpc.health.v1). */
export function loadDescriptorSet(): Uint8Array {
  if (descriptorSet === undefined) {
    const url = assetUrl(import.meta.url, "../../generated/descriptor-set.binpb", "descriptor-set.binpb");
    try {
      descriptorSet = new Uint8Array(readFileSync(url));
    } catch (cause) {
      throw new Error(`descriptor set missing (${url.pathname}): run \`npm run build\``, { cause });
    }
  }
  return descriptorSet;
}

type ReflectionModule = typeof import("nice-grpc-server-reflection");
type Definition = ReflectionModule["ServerReflectionService"];
type Method = Definition["serverReflectionInfo"];
type Implementation = ReturnType<ReflectionModule["ServerReflection"]>;

// nice-grpc-server-reflection and google-protobuf (~0.5 MB) load, and the descriptor set is parsed, on a
// server's first reflection call rather than when it starts: most processes are never asked.
let reflectionModule: ReflectionModule | undefined;
const loadReflection = (): ReflectionModule =>
  (reflectionModule ??= createRequire(import.meta.url)("nice-grpc-server-reflection") as ReflectionModule);

// The method's wire description without its module: the (de)serializers load it when first used.
function lazyMethod(path: string): Method {
  const real = (): Method => loadReflection().ServerReflectionService.serverReflectionInfo;
  return {
    path,
    requestStream: true,
    responseStream: true,
    requestSerialize: (value) => real().requestSerialize(value),
    requestDeserialize: (bytes) => real().requestDeserialize(bytes),
    responseSerialize: (value) => real().responseSerialize(value),
    responseDeserialize: (bytes) => real().responseDeserialize(bytes),
  } as Method;
}

/**
 * Serves reflection v1 and, for older grpcurl and Postman, the same implementation under the
 * v1alpha path (the messages are wire-identical). Lists the given services plus health.
 */
export function addReflection(server: Pick<Server, "add">, serviceNames: readonly string[]): void {
  let implementation: Implementation | undefined;
  const served: Implementation = {
    serverReflectionInfo: (requests, context) => {
      implementation ??= loadReflection().ServerReflection(loadDescriptorSet(), [...serviceNames, HEALTH_SERVICE, V1_SERVICE]);
      return implementation.serverReflectionInfo(requests, context);
    },
  };
  for (const path of [V1_PATH, V1ALPHA_PATH])
    server.add({ serverReflectionInfo: lazyMethod(path) } as unknown as Definition, served);
}
