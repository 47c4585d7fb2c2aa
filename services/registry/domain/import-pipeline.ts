// Imports a pipeline as kepler-model-db publishes it (the model server's load_init_pipeline and
// unpack_zip_files, spec §7.1): a zip, streamed by the client (never a path on the server), holding metadata.json, node_type_index.json and
// `<source>/<OutputType>/<FeatureGroup>/<model>.zip` with a sibling `<model>.json` weight file for
// weight-capable trainers. Models with weights or our JSON component files are served; pickled
// scikit-learn and XGBoost models cannot run without Python and are skipped, each with its reason.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { energySourceOfLabel } from "../../domain/energy-sources.js";
import { InvalidInputError, NotFoundError } from "../../domain/errors.js";
import { assertPathSegment, createZip, type ModelLocation, readZip, REPORT_FOLDER, type ZipLimits } from "../../models/index.js";
import { locationKey, type StoredModel } from "./stored-model.js";
import { type ModelStore, OUTPUT_TYPE_NAMES, type PipelineSummary } from "./model-store.js";

/** An import would overwrite a pipeline and `replace` was not set. */
export class AlreadyExistsError extends Error {
  override readonly name = "AlreadyExistsError";
}

/** A model left out, and why. */
export interface SkippedModel {
  path: string;
  reason: string;
}

/** The import's outcome. */
export interface ImportResult {
  pipeline: PipelineSummary;
  importedModelCount: number;
  skippedModels: SkippedModel[];
}

async function entriesOf(path: string): Promise<Array<{ name: string; directory: boolean }>> {
  try {
    return (await readdir(path, { withFileTypes: true }))
      .filter((e) => !e.name.startsWith("."))
      .map((e) => ({ name: e.name, directory: e.isDirectory() }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}

// readZip has checked the names (no zip-slip, no absolute paths, no links) and the sizes.
async function unpackZip(bytes: Uint8Array, into: string, limits: ZipLimits): Promise<void> {
  for (const entry of readZip(bytes, "archive_chunk", limits)) {
    const path = join(into, entry.name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, entry.data);
  }
}

// A pipeline folder has metadata.json, node_type_index.json or an energy-source folder at its top;
// a zip made of the folder itself (one top-level directory) is looked into.
async function findPipelineRoot(folder: string): Promise<string> {
  const entries = await entriesOf(folder);
  const looksLikePipeline = entries.some(
    (e) =>
      e.name === "metadata.json" ||
      e.name === "node_type_index.json" ||
      (e.directory && energySourceOfLabel(e.name) !== undefined),
  );
  if (!looksLikePipeline && entries.length === 1 && entries[0]?.directory === true) return join(folder, entries[0].name);
  return folder;
}

// Zips an unpacked model folder that has no `<model>.zip` beside it.
async function zipFolder(folder: string): Promise<Uint8Array> {
  const files = (await entriesOf(folder)).filter((e) => !e.directory);
  return createZip(await Promise.all(files.map(async (f) => ({ name: f.name, data: await readFile(join(folder, f.name)) }))));
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Imports a pipeline zip into the store (see the file comment). */
export async function importPipeline(
  store: ModelStore,
  zip: Uint8Array,
  options: { pipelineName?: string; replace?: boolean },
): Promise<ImportResult> {
  const name = options.pipelineName ?? "";
  if (name === "") throw new InvalidInputError("header.pipeline_name", "required when the pipeline zip is streamed");
  assertPathSegment(name, "header.pipeline_name");
  if (store.pipeline(name) !== undefined && options.replace !== true) {
    throw new AlreadyExistsError(`pipeline "${name}" already exists; set replace to overwrite it`);
  }
  let scratch: string | undefined;
  try {
    scratch = await mkdtemp(join(store.modelPath, ".import-"));
    await unpackZip(zip, scratch, store.zipLimits);
    const root = await findPipelineRoot(scratch);
    // Pipeline-level files first, so the node-type index is there when model events go out.
    const topFiles = (await entriesOf(root)).filter((e) => !e.directory);
    const ordered = [...topFiles].sort(
      (a, b) => Number(b.name === "node_type_index.json") - Number(a.name === "node_type_index.json"),
    );
    for (const file of ordered) await store.writePipelineFile(name, file.name, await readFile(join(root, file.name)));
    // The accuracy report and stored idle profiles come along when the zip has them.
    for (const folder of [REPORT_FOLDER, "profile"]) {
      for (const file of (await entriesOf(join(root, folder))).filter((e) => !e.directory))
        await store.writePipelineFile(name, `${folder}/${file.name}`, await readFile(join(root, folder, file.name)));
    }
    const imported = new Set<string>();
    const skippedModels: SkippedModel[] = [];
    for (const sourceDir of (await entriesOf(root)).filter((e) => e.directory)) {
      const energySource = energySourceOfLabel(sourceDir.name);
      if (energySource === undefined) continue;
      for (const outputType of OUTPUT_TYPE_NAMES) {
        const outputPath = join(root, sourceDir.name, outputType);
        for (const group of (await entriesOf(outputPath)).filter((e) => e.directory)) {
          const groupPath = join(outputPath, group.name);
          const groupEntries = await entriesOf(groupPath);
          const zips = new Set(
            groupEntries.filter((e) => !e.directory && e.name.endsWith(".zip")).map((e) => e.name.slice(0, -4)),
          );
          const folders = groupEntries
            .filter((e) => e.directory && e.name !== "checkpoint" && !zips.has(e.name))
            .map((e) => e.name);
          for (const modelName of [...zips, ...folders].sort()) {
            const path = `${sourceDir.name}/${outputType}/${group.name}/${modelName}`;
            const location: ModelLocation = { pipelineName: name, energySource, outputType, featureGroup: group.name, modelName };
            try {
              const zip = zips.has(modelName)
                ? await readFile(join(groupPath, `${modelName}.zip`))
                : await zipFolder(join(groupPath, modelName));
              const weightJson =
                (await readOptional(join(groupPath, `${modelName}.json`))) ??
                (await readOptional(join(groupPath, modelName, "weight.json")));
              await store.publish({ location, zip, weightJson }, { kind: "imported" });
              imported.add(locationKey(location));
            } catch (error) {
              if (!(error instanceof InvalidInputError)) throw error;
              skippedModels.push({ path, reason: error.reason });
            }
          }
        }
      }
    }
    if (options.replace === true) {
      for (const model of store.list()) {
        if (model.location.pipelineName === name && !imported.has(locationKey(model.location)))
          await store.remove(model.location);
      }
    }
    const pipeline = store.pipelines().find((p) => p.name === name) as PipelineSummary;
    return { pipeline, importedModelCount: imported.size, skippedModels };
  } finally {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  }
}

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
export async function exportPipeline(store: ModelStore, pipelineName: string): Promise<Buffer> {
  assertPathSegment(pipelineName, "pipeline_name");
  if (store.pipeline(pipelineName) === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
  const root = join(store.modelPath, pipelineName);
  const files: Array<{ name: string; data: Uint8Array }> = [];
  for (const entry of (await entriesOf(root)).filter((e) => !e.directory)) {
    files.push({ name: entry.name, data: await readFile(join(root, entry.name)) });
  }
  // The stored accuracy report (`kepler-model report`) travels with the models.
  for (const entry of (await entriesOf(join(root, REPORT_FOLDER))).filter((e) => !e.directory)) {
    files.push({ name: `${REPORT_FOLDER}/${entry.name}`, data: await readFile(join(root, REPORT_FOLDER, entry.name)) });
  }
  const models = store.list().filter((m) => m.location.pipelineName === pipelineName);
  // The reference server treats only folders with metadata.json as pipelines and reads
  // node_type_index.json for every request with a machine spec (500 without it): always ship both.
  const encoder = new TextEncoder();
  if (!files.some((f) => f.name === "node_type_index.json")) {
    const index = store.pipeline(pipelineName)?.index.toJson() ?? {};
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
    files.push({ name: `${prefix}.zip`, data: await store.readArchive(model) });
    if (model.weightJson !== undefined) files.push({ name: `${prefix}.json`, data: new TextEncoder().encode(model.weightJson) });
  }
  return createZip(files);
}
