// Imports a pipeline as kepler-model-db publishes it (the model server's load_init_pipeline and
// unpack_zip_files, spec §7.1): a zip, streamed by the client (never a path on the server), holding metadata.json, node_type_index.json and
// `<source>/<OutputType>/<FeatureGroup>/<model>.zip` with a sibling `<model>.json` weight file for
// weight-capable trainers. Models with weights or our JSON component files are served; pickled
// scikit-learn and XGBoost models cannot run without Python and are skipped, each with its reason.
// The zip is read in memory (archive-tree.ts) and everything is written through the catalogue.
import { energySourceOfLabel } from "../../domain/energy-sources.js";
import { InvalidInputError, AlreadyExistsError, FailedPreconditionError } from "../../domain/errors.js";
import {
  assertPathSegment,
  createZip,
  type ModelLocation,
  OUTPUT_TYPE_NAMES,
  readZip,
  REPORT_FOLDER,
} from "../../models/index.js";
import { reportFileProblem } from "../../models/report-files.js";
import { ArchiveTree, childPath } from "./archive-tree.js";
import type { ModelCatalogue } from "./model-catalogue.js";
import type { PipelineSummary } from "./pipeline-state.js";
import { locationKey } from "./stored-model.js";

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

// A pipeline folder has metadata.json, node_type_index.json or an energy-source folder at its top;
// a zip made of the folder itself (one top-level directory) is looked into.
function findPipelineRoot(tree: ArchiveTree): string {
  const entries = tree.entriesOf("");
  const looksLikePipeline = entries.some(
    (e) =>
      e.name === "metadata.json" ||
      e.name === "node_type_index.json" ||
      (e.directory && energySourceOfLabel(e.name) !== undefined),
  );
  if (!looksLikePipeline && entries.length === 1 && entries[0]?.directory === true) return entries[0].name;
  return "";
}

// Zips an unpacked model folder that has no `<model>.zip` beside it.
function zipFolder(tree: ArchiveTree, folder: string): Uint8Array {
  const files = tree.entriesOf(folder).filter((e) => !e.directory);
  return createZip(files.map((f) => ({ name: f.name, data: tree.read(childPath(folder, f.name)) as Uint8Array })));
}

function readText(tree: ArchiveTree, path: string): string | undefined {
  const data = tree.read(path);
  return data === undefined ? undefined : new TextDecoder().decode(data);
}

// The models of one group folder: `<model>.zip` files, and model folders without a zip beside them.
function modelNamesIn(tree: ArchiveTree, groupPath: string): { zips: Set<string>; names: string[] } {
  const entries = tree.entriesOf(groupPath);
  const zips = new Set(entries.filter((e) => !e.directory && e.name.endsWith(".zip")).map((e) => e.name.slice(0, -4)));
  const folders = entries.filter((e) => e.directory && e.name !== "checkpoint" && !zips.has(e.name)).map((e) => e.name);
  return { zips, names: [...zips, ...folders].sort() };
}

// How many model entries the archive's `<source>/<OutputType>/<FeatureGroup>/` folders hold.
function countArchiveModels(tree: ArchiveTree, root: string): number {
  let count = 0;
  for (const sourceDir of tree.entriesOf(root).filter((e) => e.directory && energySourceOfLabel(e.name) !== undefined))
    for (const outputType of OUTPUT_TYPE_NAMES)
      for (const group of tree.entriesOf(childPath(root, `${sourceDir.name}/${outputType}`)).filter((e) => e.directory))
        count += modelNamesIn(tree, childPath(root, `${sourceDir.name}/${outputType}/${group.name}`)).names.length;
  return count;
}

// A replace that would leave the pipeline without models wipes it: refused unless the caller says force.
function assertNotAnEmptyReplace(catalogue: ModelCatalogue, name: string, modelCount: number, force: boolean): void {
  if (force || modelCount > 0) return;
  const stored = catalogue.list().filter((m) => m.location.pipelineName === name).length;
  if (stored === 0) return;
  throw new FailedPreconditionError(
    `pipeline "${name}": the archive holds no servable model, so replacing would remove all ${stored} stored models; set force to do that`,
    { subject: "header.force" },
  );
}

/** Imports a pipeline zip into the catalogue (see the file comment). */
export async function importPipeline(
  catalogue: ModelCatalogue,
  zip: Uint8Array,
  options: { pipelineName?: string; replace?: boolean; force?: boolean },
): Promise<ImportResult> {
  const name = options.pipelineName ?? "";
  if (name === "") throw new InvalidInputError("header.pipeline_name", "required when the pipeline zip is streamed");
  assertPathSegment(name, "header.pipeline_name");
  if (catalogue.pipeline(name) !== undefined && options.replace !== true) {
    throw new AlreadyExistsError(`pipeline "${name}" already exists; set replace to overwrite it`);
  }
  const tree = new ArchiveTree(readZip(zip, "archive_chunk", catalogue.zipLimits));
  const root = findPipelineRoot(tree);
  const force = options.force === true;
  if (options.replace === true) assertNotAnEmptyReplace(catalogue, name, countArchiveModels(tree, root), force);
  // Pipeline-level files first, so the node-type index is there when model events go out.
  const topFiles = tree.entriesOf(root).filter((e) => !e.directory);
  const ordered = [...topFiles].sort(
    (a, b) => Number(b.name === "node_type_index.json") - Number(a.name === "node_type_index.json"),
  );
  for (const file of ordered)
    await catalogue.writePipelineFile(name, file.name, tree.read(childPath(root, file.name)) as Uint8Array);
  // The accuracy report and stored idle profiles come along when the zip has them; of report/ only the
  // files kepler-model report writes (the registry serves them as pages), the others are listed as skipped.
  const skippedModels: SkippedModel[] = [];
  for (const folder of [REPORT_FOLDER, "profile"]) {
    for (const file of tree.entriesOf(childPath(root, folder)).filter((e) => !e.directory)) {
      const bytes = tree.read(childPath(root, `${folder}/${file.name}`)) as Uint8Array;
      const problem = folder === REPORT_FOLDER ? reportFileProblem(file.name, bytes) : undefined;
      if (problem === undefined) await catalogue.writePipelineFile(name, `${folder}/${file.name}`, bytes);
      else skippedModels.push({ path: `${folder}/${file.name}`, reason: problem });
    }
  }
  const imported = new Set<string>();
  for (const sourceDir of tree.entriesOf(root).filter((e) => e.directory)) {
    const energySource = energySourceOfLabel(sourceDir.name);
    if (energySource === undefined) continue;
    for (const outputType of OUTPUT_TYPE_NAMES) {
      for (const group of tree.entriesOf(childPath(root, `${sourceDir.name}/${outputType}`)).filter((e) => e.directory)) {
        const groupPath = childPath(root, `${sourceDir.name}/${outputType}/${group.name}`);
        const { zips, names } = modelNamesIn(tree, groupPath);
        for (const modelName of names) {
          const path = `${sourceDir.name}/${outputType}/${group.name}/${modelName}`;
          const location: ModelLocation = { pipelineName: name, energySource, outputType, featureGroup: group.name, modelName };
          try {
            const modelZip = zips.has(modelName)
              ? (tree.read(`${groupPath}/${modelName}.zip`) as Uint8Array)
              : zipFolder(tree, `${groupPath}/${modelName}`);
            const weightJson =
              readText(tree, `${groupPath}/${modelName}.json`) ?? readText(tree, `${groupPath}/${modelName}/weight.json`);
            await catalogue.publish({ location, zip: modelZip, weightJson }, { kind: "imported" });
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
    // Every model skipped (none readable without Python): keep the stored ones unless forced.
    assertNotAnEmptyReplace(catalogue, name, imported.size, force);
    for (const model of catalogue.list()) {
      if (model.location.pipelineName === name && !imported.has(locationKey(model.location)))
        await catalogue.remove(model.location);
    }
  }
  const pipeline = catalogue.pipelines().find((p) => p.name === name) as PipelineSummary;
  return { pipeline, importedModelCount: imported.size, skippedModels };
}
