// Streams a pipeline zip to ImportPipeline (header, then 1 MiB chunks), as the CLI does.
import type { RegistryServiceDefinition } from "../../services/generated/kepler/model/v1/registry_service.js";
import type { PeerClient } from "../../services/kit/transport/grpc-client.js";

/** Imports `zip` as pipeline `pipelineName` through the registry's gRPC client. */
export async function importPipelineZip(
  registry: PeerClient<typeof RegistryServiceDefinition>,
  pipelineName: string,
  zip: Uint8Array,
  options: { replace?: boolean; force?: boolean; serverPath?: string } = {},
) {
  return registry.client.importPipeline(
    (async function* () {
      yield {
        content: {
          $case: "header" as const,
          value: {
            pipelineName,
            serverPath: options.serverPath ?? "",
            replace: options.replace === true,
            force: options.force === true,
          },
        },
      };
      for (let offset = 0; offset < zip.byteLength; offset += 1024 * 1024)
        yield { content: { $case: "archiveChunk" as const, value: Buffer.from(zip.subarray(offset, offset + 1024 * 1024)) } };
    })(),
  );
}
