// The estimator's model source: the registry over gRPC. SelectModel chooses (metadata only), then the
// archive (our JSON models) or weight.json (imported kepler-model-db models) is fetched and turned
// into a predictor. Registry failures become domain errors the estimator's callers can act on.
import { componentsOf, type EnergySource } from "../domain/energy-sources.js";
import type { MachineSpec } from "../generated/kepler/model/v1/types.js";
import type { ModelLocation, ModelMetadata, ModelSelection } from "../generated/kepler/model/v1/model.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import { fromPeerError } from "../kit/calls/peer-errors.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import {
  type ArchiveTrustedKeys,
  calibrationOf,
  parseWeightJson,
  readComponentModels,
  readZip,
  verifyArchiveEntries,
  WEIGHT_FILE,
} from "../models/index.js";
import type { LoadedModel, ModelQuery, ModelSource } from "./domain/loaded-model.js";
import { IntervalCalibration } from "./domain/prediction-intervals.js";
import { createComponentPredictor, createWeightPredictor, type Predictor } from "./domain/predictor.js";
import { outputTypeToProto } from "../kit/transport/output-type-codec.js";

/** What the estimator reports about where a model came from. */
export interface RegistryProvenance {
  selection?: ModelSelection;
  location?: ModelLocation;
  machineSpec?: MachineSpec;
}

/**
 * A ModelSource over a registry client. With `trustedKeys`, every archive must carry a signature by one of
 * them (models/archive-signature.ts) and is refused before use otherwise; weights then come from the
 * signed archive's weight.json, not from GetModelWeights.
 */
export function createRegistryModelSource(
  registry: PeerClient<typeof RegistryServiceDefinition>,
  trustedKeys?: ArchiveTrustedKeys,
): ModelSource<RegistryProvenance> {
  const client = registry.client;
  async function fetchArchive(location: ModelLocation): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const message of client.getModelArchive({ location })) chunks.push(message.archiveChunk);
    return Buffer.concat(chunks);
  }
  async function load(query: ModelQuery): Promise<LoadedModel<RegistryProvenance>> {
    const selected = await client.selectModel({
      featureNames: [...query.featureNames],
      unavailableFeatureNames: [...query.unavailableFeatureNames],
      outputType: outputTypeToProto(query.outputType),
      energySource: query.energySource,
      weight: false,
      trainerName: query.trainerName,
      filter: query.filter,
      pipelineName: query.pipelineName,
      machineSpec: { ...query.machineSpec, vendor: "", threadsPerCore: 0 },
      metadataOnly: true,
    });
    const metadata = selected.metadata as ModelMetadata;
    const location = metadata.location as ModelLocation;
    const components = componentsOf(location.energySource as EnergySource);
    const metadataJson = JSON.parse(metadata.metadataJson) as Record<string, unknown>;
    const ours = typeof metadataJson.format_version === "number";
    const residuals = calibrationOf(metadataJson);
    const archiveName = `${location.pipelineName}/${location.energySource}/${location.featureGroup}/${metadata.modelName}.zip`;
    const entries = ours || trustedKeys !== undefined ? readZip(await fetchArchive(location), metadata.modelName) : [];
    if (trustedKeys !== undefined) verifyArchiveEntries(entries, trustedKeys, archiveName);
    let predictor: Predictor;
    if (ours) {
      predictor = createComponentPredictor(readComponentModels(entries, components));
    } else {
      const signed = entries.find((e) => e.name === WEIGHT_FILE);
      const weightJson =
        signed !== undefined
          ? Buffer.from(signed.data).toString("utf8")
          : (await client.getModelWeights({ location })).weightJson;
      predictor = createWeightPredictor(parseWeightJson(weightJson), metadata.trainerName, metadata.features, components);
    }
    return {
      modelName: metadata.modelName,
      maeWatts: metadata.maeWatts,
      featureGroup: location.featureGroup,
      modelCores: metadata.machineSpec?.cores ?? 0,
      features: metadata.features,
      predictor,
      ...(residuals === undefined ? {} : { calibration: new IntervalCalibration(residuals) }),
      selectionReason: selected.selection?.reason,
      provenance: { selection: selected.selection, location, machineSpec: metadata.machineSpec },
    };
  }
  return {
    async load(query) {
      try {
        return await load(query);
      } catch (error) {
        // The estimator forwards its caller's query: the registry's field names are the caller's.
        throw fromPeerError("registry", error, { forwardsQuery: true });
      }
    },
  };
}
