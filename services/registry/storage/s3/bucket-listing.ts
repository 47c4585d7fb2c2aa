// Reads a bucket listing in the kepler-model-db layout: models (a zip, maybe a weight sibling) and
// pipeline files (top-level files and the files of one folder below, e.g. profile/, report/). A model
// with a committed publish (staged-publish.ts) is listed as that version, whatever the layout holds yet.
import { energySourceOfLabel } from "../../../domain/energy-sources.js";
import { isOutputTypeName, type ModelLocation, type OutputTypeName } from "../../../models/index.js";
import type { ObjectEntry } from "../../../object-store/index.js";
import { isModelTable, isSafeRelativePath } from "../model-layout.js";
import type { ListedModel, ListedPipelineFile, StorageListing } from "../model-storage.js";
import { pendingPublishes, STAGING_ROOT } from "./staged-publish.js";

interface BucketModel {
  location: ModelLocation;
  zip?: ObjectEntry;
  sibling?: ObjectEntry;
}

/** The models and pipeline files of a listing (see the file comment); objects outside the layout are left out. */
export function listingOf(entries: readonly ObjectEntry[]): StorageListing {
  const models = new Map<string, BucketModel>();
  const pipelineFiles: ListedPipelineFile[] = [];
  for (const entry of entries) {
    if (!isSafeRelativePath(entry.path) || entry.path.startsWith(`${STAGING_ROOT}/`)) continue;
    const parts = entry.path.split("/");
    const pipelineName = parts[0] as string;
    const energySource = parts.length > 1 ? energySourceOfLabel(parts[1] as string) : undefined;
    if (energySource === undefined) {
      if ((parts.length === 2 && !isModelTable(entry.path)) || parts.length === 3)
        pipelineFiles.push({ pipelineName, path: parts.slice(1).join("/"), signature: entry.etag });
      continue;
    }
    // Models sit under the canonical source name (an alias folder such as intel_rapl/ is not read).
    if (parts[1] !== energySource || parts.length !== 5 || !isOutputTypeName(parts[2])) continue;
    const file = parts[4] as string;
    const kind = file.endsWith(".zip") ? "zip" : file.endsWith(".json") ? "sibling" : undefined;
    if (kind === undefined) continue;
    const modelPath = entry.path.slice(0, entry.path.lastIndexOf("."));
    const model = models.get(modelPath) ?? {
      location: {
        pipelineName,
        energySource,
        outputType: parts[2] as OutputTypeName,
        featureGroup: parts[3] as string,
        modelName: file.slice(0, file.lastIndexOf(".")),
      },
    };
    model[kind] = entry;
    models.set(modelPath, model);
  }
  const listed: ListedModel[] = [];
  for (const [modelPath, publish] of pendingPublishes(entries)) {
    const model = models.get(modelPath);
    const location = model?.location ?? locationOf(modelPath);
    models.delete(modelPath);
    if (location !== undefined)
      listed.push({ location, signature: publish.signature, modifiedTimeSeconds: publish.modifiedTimeSeconds });
  }
  for (const model of models.values()) {
    if (model.zip === undefined) continue;
    listed.push({
      location: model.location,
      signature: `${model.zip.etag}:${model.sibling?.etag ?? "-"}`,
      modifiedTimeSeconds: model.zip.modifiedTimeSeconds,
    });
  }
  const pipelineNames = [
    ...new Set([...listed.map((m) => m.location.pipelineName), ...pipelineFiles.map((f) => f.pipelineName)]),
  ];
  return { pipelineNames: pipelineNames.sort(), models: listed, pipelineFiles };
}

/** The location of a model by its layout path (`<pipeline>/<source>/<OutputType>/<FeatureGroup>/<model>`). */
function locationOf(modelPath: string): ModelLocation | undefined {
  const parts = modelPath.split("/");
  const energySource = energySourceOfLabel(parts[1] ?? "");
  if (energySource === undefined || parts.length !== 5 || parts[1] !== energySource || !isOutputTypeName(parts[2]))
    return undefined;
  if (!isSafeRelativePath(modelPath)) return undefined;
  const [pipelineName, , outputType, featureGroup, modelName] = parts as [string, string, OutputTypeName, string, string];
  return { pipelineName, energySource, outputType, featureGroup, modelName };
}
