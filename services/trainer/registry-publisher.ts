// Publishing a trained model through the registry's PublishModel (client stream: header, zip chunks), so
// the registry serves it at once and announces it to watchers; used when the trainer has a registry address.
import { createHash } from "node:crypto";
import type { PublishModelRequest, RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { fromPeerError } from "../kit/calls/peer-errors.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import { archiveZip, type ModelArchive } from "../models/index.js";
import { outputTypeToProto } from "../kit/transport/output-type-codec.js";

/** A publishModel dependency for trainModels that streams each archive to the registry. */
export function createRegistryPublisher(
  registry: PeerClient<typeof RegistryServiceDefinition>,
): (archive: ModelArchive) => Promise<void> {
  return async (archive) => {
    const zip = archiveZip(archive);
    const { location } = archive;
    async function* requests(): AsyncGenerator<PublishModelRequest> {
      yield {
        content: {
          $case: "header",
          value: {
            location: {
              pipelineName: location.pipelineName,
              energySource: location.energySource,
              outputType: outputTypeToProto(location.outputType),
              featureGroup: location.featureGroup,
              modelName: location.modelName,
            },
            // weight.json travels inside the zip.
            weightJson: "",
            archiveSizeBytes: zip.byteLength,
            archiveSha256: createHash("sha256").update(zip).digest("hex"),
          },
        },
      };
      for (const chunk of byteChunks(zip)) yield { content: { $case: "archiveChunk", value: Buffer.from(chunk) } };
    }
    try {
      await registry.client.publishModel(requests());
    } catch (error) {
      // A refused archive is the trainer's fault, reported as its failure (invalid input naming the registry).
      throw fromPeerError("registry", error);
    }
  };
}
