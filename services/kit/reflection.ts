import { readFileSync } from "node:fs";
import { assetUrl } from "./asset-url.js";
import type { Server } from "nice-grpc";
import { ServerReflection, ServerReflectionService } from "nice-grpc-server-reflection";

const HEALTH_SERVICE = "grpc.health.v1.Health";
const V1_SERVICE = "grpc.reflection.v1.ServerReflection";
const V1ALPHA_PATH = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

let descriptorSet: Uint8Array | undefined;

/** The FileDescriptorSet built by `npm run build:proto` (our protos plus grpc.health.v1). */
export function loadDescriptorSet(): Uint8Array {
  if (descriptorSet === undefined) {
    const url = assetUrl(import.meta.url, "../generated/descriptor-set.binpb", "descriptor-set.binpb");
    try {
      descriptorSet = new Uint8Array(readFileSync(url));
    } catch (cause) {
      throw new Error(`descriptor set missing (${url.pathname}): run \`npm run build\``, { cause });
    }
  }
  return descriptorSet;
}

/**
 * Serves reflection v1 and, for older grpcurl and Postman, the same implementation under the
 * v1alpha path (the messages are wire-identical). Lists the given services plus health.
 */
export function addReflection(server: Pick<Server, "add">, serviceNames: readonly string[]): void {
  const implementation = ServerReflection(loadDescriptorSet(), [...serviceNames, HEALTH_SERVICE, V1_SERVICE]);
  server.add(ServerReflectionService, implementation);
  const v1alpha = {
    serverReflectionInfo: { ...ServerReflectionService.serverReflectionInfo, path: V1ALPHA_PATH },
  } as unknown as typeof ServerReflectionService;
  server.add(v1alpha, implementation);
}
