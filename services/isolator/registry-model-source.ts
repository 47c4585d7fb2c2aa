// The trainer isolator's AbsPower models, fetched from the registry through its gRPC client.
import type { EnergySource } from "../domain/energy-sources.js";
import type { FeatureGroupName } from "../domain/feature-groups.js";
import type { ModelMetadata } from "../generated/kepler/model/v1/model.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { OutputType } from "../generated/kepler/model/v1/types.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { createArchivedAbsModel } from "./domain/archived-abs-model.js";
import type { BackgroundModelSource, BackgroundPowerModel } from "./domain/background-models.js";
import { callPeer } from "../kit/calls/peer-errors.js";

/** Lists the AbsPower models of a pipeline per feature group and reads their archives. */
export function createRegistryModelSource(registry: PeerClient<typeof RegistryServiceDefinition>): BackgroundModelSource {
  const { client } = registry;
  return {
    async loadAbsPowerModels(request) {
      const notices: string[] = [];
      const pipelineName = request.pipelineName === "" ? await servingPipeline(request.energySource) : request.pipelineName;
      if (pipelineName === undefined)
        return { models: [], notices: [`the registry has no AbsPower model of ${request.energySource}`] };
      const models: BackgroundPowerModel[] = [];
      for (const featureGroup of request.featureGroups) {
        for (const metadata of await listGroup(pipelineName, request.energySource, featureGroup)) {
          try {
            models.push(await loadModel(metadata, featureGroup));
          } catch (error) {
            notices.push(
              `AbsPower model ${featureGroup}/${metadata.modelName} of ${pipelineName} was skipped: ${(error as Error).message}`,
            );
          }
        }
      }
      return { models, notices };
    },
  };

  // The pipeline the registry serves the source from (the best AbsPower model's pipeline).
  async function servingPipeline(energySource: EnergySource): Promise<string | undefined> {
    const best = await callPeer("registry", () =>
      client.listBestModels({ energySource, outputType: OutputType.OUTPUT_TYPE_ABS_POWER }),
    );
    return best.bestModels[0]?.location?.pipelineName;
  }

  async function listGroup(
    pipelineName: string,
    energySource: EnergySource,
    featureGroup: FeatureGroupName,
  ): Promise<ModelMetadata[]> {
    const all: ModelMetadata[] = [];
    let pageToken = "";
    do {
      const page = await callPeer("registry", () =>
        client.listModels({ pipelineName, energySource, outputType: OutputType.OUTPUT_TYPE_ABS_POWER, featureGroup, pageToken }),
      );
      all.push(...page.models);
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    return all;
  }

  async function loadModel(metadata: ModelMetadata, featureGroup: FeatureGroupName): Promise<BackgroundPowerModel> {
    const chunks: Uint8Array[] = [];
    await callPeer("registry", async () => {
      for await (const message of client.getModelArchive({ location: metadata.location })) chunks.push(message.archiveChunk);
    });
    return createArchivedAbsModel(
      { modelName: metadata.modelName, featureGroup, maeWatts: metadata.maeWatts, modelFile: metadata.modelFile },
      Buffer.concat(chunks),
    );
  }
}
