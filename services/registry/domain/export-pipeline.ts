// Exports a pipeline as one zip in the kepler-model-db layout, read through the catalogue's storage.
import { NotFoundError } from "../../domain/errors.js";
import { assertPathSegment, createZip, REPORT_FOLDER } from "../../models/index.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import type { StoredModel } from "./stored-model.js";

// The reference's pipeline metadata keys we can state for a pipeline that never had a metadata.json.
function synthesizedPipelineMetadata(name: string, models: readonly StoredModel[]): Record<string, unknown> {
  const trainersOf = (outputType: string) => [
    ...new Set(models.filter((m) => m.location.outputType === outputType).map((m) => m.trainerName)),
  ];
  return {
    name,
    abs_trainers: trainersOf("AbsPower"),
    dyn_trainers: trainersOf("DynPower"),
    export_time: new Date().toISOString().slice(0, 19).replace("T", " "),
  };
}

/**
 * A pipeline as one zip in the kepler-model-db layout: the top-level files (always with
 * node_type_index.json and metadata.json) plus every model's
 * `<model>.zip` and weight sibling `<model>.json`, and the stored report (`report/`); unpacked folders and
 * checkpoints are left out.
 */
export async function exportPipeline(catalogue: ModelCatalogue, pipelineName: string): Promise<Buffer> {
  assertPathSegment(pipelineName, "pipeline_name");
  if (catalogue.pipeline(pipelineName) === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
  const files: Array<{ name: string; data: Uint8Array }> = [];
  // The stored accuracy report (`kepler-model report`) travels with the models.
  for (const folder of ["", REPORT_FOLDER]) {
    for (const name of await catalogue.listPipelineFiles(pipelineName, folder)) {
      const path = folder === "" ? name : `${folder}/${name}`;
      const data = await catalogue.readPipelineFile(pipelineName, path);
      if (data !== undefined) files.push({ name: path, data });
    }
  }
  const models = catalogue.list().filter((m) => m.location.pipelineName === pipelineName);
  // The reference server treats only folders with metadata.json as pipelines and reads
  // node_type_index.json for every request with a machine spec (500 without it): always ship both.
  const encoder = new TextEncoder();
  if (!files.some((f) => f.name === "node_type_index.json")) {
    const index = catalogue.pipeline(pipelineName)?.index.toJson() ?? {};
    files.push({ name: "node_type_index.json", data: encoder.encode(JSON.stringify(index)) });
  }
  if (!files.some((f) => f.name === "metadata.json")) {
    files.push({
      name: "metadata.json",
      data: encoder.encode(JSON.stringify(synthesizedPipelineMetadata(pipelineName, models))),
    });
  }
  for (const model of models) {
    const { energySource, outputType, featureGroup, modelName } = model.location;
    const prefix = `${energySource}/${outputType}/${featureGroup}/${modelName}`;
    files.push({ name: `${prefix}.zip`, data: await catalogue.readArchive(model) });
    if (model.weightJson !== undefined) files.push({ name: `${prefix}.json`, data: encoder.encode(model.weightJson) });
  }
  return createZip(files);
}
