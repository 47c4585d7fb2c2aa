// The local folder storage: MODEL_PATH on this machine's file system, the registry's embedded default
// and, with a shared store, its cache. A model is published by the journaled write-aside-then-rename
// of atomic-publish.ts; opening the folder first finishes or undoes publishes a crash interrupted.
import { mkdir, readdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ENERGY_SOURCE_COMPONENTS } from "../../../domain/energy-sources.js";
import { InvalidInputError } from "../../../domain/errors.js";
import type { DomainLogger } from "../../../kit/observe/logger.js";
import { type ModelLocation, OUTPUT_TYPE_NAMES } from "../../../models/index.js";
import { groupPathOf, isModelTable, isSafeRelativePath, modelPathOf } from "../model-layout.js";
import type {
  ListedModel,
  ListedPipelineFile,
  ModelFiles,
  ModelStorage,
  StorageListing,
  StoredModelBytes,
  WriteStep,
  WrittenModel,
} from "../model-storage.js";
import { recoverGroup, writeModelFiles } from "./atomic-publish.js";
import { removeLeftoverFiles } from "./leftover-files.js";
import { entriesOf, listDirectories, readOrUndefined, statOrUndefined, writeFileAtomically } from "./folder-files.js";

type Group = Omit<ModelLocation, "modelName">;

/** MODEL_PATH as a ModelStorage (see the file comment). */
export class LocalFolderStorage implements ModelStorage {
  private constructor(readonly root: string) {}

  /** Opens a folder (created if missing), finishing or undoing interrupted publishes; each is logged. */
  static async open(root: string, logger: DomainLogger): Promise<LocalFolderStorage> {
    await mkdir(root, { recursive: true });
    // Scratch folders that imports of earlier versions left when a crash interrupted them.
    for (const name of await readdir(root)) {
      if (!name.startsWith(".import-")) continue;
      // A leftover that cannot be removed is logged, not fatal: it is never read.
      await rm(join(root, name), { recursive: true, force: true }).catch((error: unknown) =>
        logger.warn({ path: join(root, name), reason: (error as Error).message }, "could not remove an import scratch folder"),
      );
    }
    const storage = new LocalFolderStorage(root);
    for (const pipelineName of await listDirectories(root)) {
      for (const folder of ["", "report", "profile"]) {
        for (const path of await removeLeftoverFiles(join(root, pipelineName, folder)))
          logger.warn({ path }, "removed a temporary file an interrupted write left");
      }
    }
    for (const { groupPath } of await storage.groups()) {
      // recoverGroup reports instead of throwing: a damaged journal must never stop the server.
      for (const action of await recoverGroup(groupPath)) logger.warn({ groupPath, action }, "recovered an interrupted publish");
    }
    return storage;
  }

  get name(): string {
    return this.root;
  }

  // Every group folder under a pipeline's energy-source folders, in name order.
  private async groups(pipelineNames?: readonly string[]): Promise<Array<{ group: Group; groupPath: string }>> {
    const groups: Array<{ group: Group; groupPath: string }> = [];
    for (const pipelineName of pipelineNames ?? (await listDirectories(this.root))) {
      const sources = (await listDirectories(join(this.root, pipelineName))).filter((name) => name in ENERGY_SOURCE_COMPONENTS);
      for (const energySource of sources) {
        for (const outputType of OUTPUT_TYPE_NAMES) {
          const outputPath = join(this.root, pipelineName, energySource, outputType);
          for (const featureGroup of await listDirectories(outputPath))
            groups.push({
              group: { pipelineName, energySource, outputType, featureGroup },
              groupPath: join(outputPath, featureGroup),
            });
        }
      }
    }
    return groups;
  }

  async list(): Promise<StorageListing> {
    const listing: StorageListing = { pipelineNames: [], models: [], pipelineFiles: [] };
    for (const pipelineName of await listDirectories(this.root)) {
      const entries = (await entriesOf(join(this.root, pipelineName))) ?? [];
      const files = await this.pipelineFilesOf(pipelineName, entries);
      listing.pipelineFiles.push(...files);
      const hasSources = entries.some((e) => e.directory && e.name in ENERGY_SOURCE_COMPONENTS);
      const hasIndexOrMetadata = files.some((f) => f.path === "metadata.json" || f.path === "node_type_index.json");
      if (hasSources || hasIndexOrMetadata) listing.pipelineNames.push(pipelineName);
      for (const { group, groupPath } of await this.groups([pipelineName]))
        listing.models.push(...(await this.modelsIn(group, groupPath)));
    }
    return listing;
  }

  // The pipeline's top-level files (model tables aside) and the files of its other folders.
  private async pipelineFilesOf(
    pipelineName: string,
    entries: ReadonlyArray<{ name: string; directory: boolean }>,
  ): Promise<ListedPipelineFile[]> {
    const paths: string[] = [];
    for (const entry of entries) {
      if (!entry.directory) {
        if (!isModelTable(entry.name)) paths.push(entry.name);
      } else if (!(entry.name in ENERGY_SOURCE_COMPONENTS)) {
        const inner = (await entriesOf(join(this.root, pipelineName, entry.name))) ?? [];
        paths.push(...inner.filter((e) => !e.directory).map((e) => `${entry.name}/${e.name}`));
      }
    }
    const files: ListedPipelineFile[] = [];
    for (const path of paths) {
      const info = await statOrUndefined(join(this.root, pipelineName, path));
      if (info !== undefined) files.push({ pipelineName, path, signature: `${info.mtimeMs}:${info.size}` });
    }
    return files;
  }

  private async modelsIn(group: Group, groupPath: string): Promise<ListedModel[]> {
    let names: string[];
    try {
      names = (await readdir(groupPath)).sort();
    } catch {
      return [];
    }
    const models: ListedModel[] = [];
    for (const file of names) {
      if (file.startsWith(".") || !file.endsWith(".zip")) continue;
      const location: ModelLocation = { ...group, modelName: file.slice(0, -4) };
      const stamp = await this.stampOf(location);
      if (stamp !== undefined) models.push({ location, ...stamp });
    }
    return models;
  }

  private path(location: ModelLocation, suffix: "" | ".zip" | ".json"): string {
    return join(this.root, `${modelPathOf(location)}${suffix}`);
  }

  // The zip's time and size and the weight sibling's time: what changes when either is replaced.
  private async stampOf(location: ModelLocation): Promise<WrittenModel | undefined> {
    const zip = await statOrUndefined(this.path(location, ".zip"));
    if (zip === undefined) return undefined;
    const sibling = await statOrUndefined(this.path(location, ".json"));
    return { signature: `${zip.mtimeMs}:${zip.size}:${sibling?.mtimeMs ?? "-"}`, modifiedTimeSeconds: zip.mtimeMs / 1000 };
  }

  async readModel(location: ModelLocation): Promise<StoredModelBytes | undefined> {
    const zip = await readOrUndefined(this.path(location, ".zip"));
    if (zip === undefined) return undefined;
    const sibling = await readOrUndefined(this.path(location, ".json"));
    return sibling === undefined ? { zip } : { zip, weightJson: sibling.toString("utf8") };
  }

  async readArchive(location: ModelLocation): Promise<Buffer | undefined> {
    return readOrUndefined(this.path(location, ".zip"));
  }

  async writeModel(
    location: ModelLocation,
    files: ModelFiles,
    onStep?: (step: WriteStep) => void | Promise<void>,
  ): Promise<WrittenModel> {
    await writeModelFiles(join(this.root, groupPathOf(location)), location.modelName, files, onStep);
    const stamp = await this.stampOf(location);
    // Only a writer racing this one removes the zip in between; the write itself succeeded.
    return stamp ?? { signature: "-", modifiedTimeSeconds: Date.now() / 1000 };
  }

  async removeModel(location: ModelLocation): Promise<void> {
    await rm(this.path(location, ".zip"), { force: true });
    await rm(this.path(location, ".json"), { force: true });
    await rm(this.path(location, ""), { recursive: true, force: true });
  }

  private pipelinePath(pipelineName: string): string {
    if (!isSafeRelativePath(pipelineName) || pipelineName.includes("/"))
      throw new InvalidInputError("pipeline_name", `"${pipelineName}" is not one folder name`);
    return join(this.root, pipelineName);
  }

  private pipelineFilePath(pipelineName: string, path: string): string {
    if (!isSafeRelativePath(path)) throw new InvalidInputError("path", `"${pipelineName}/${path}" leaves the pipeline folder`);
    return join(this.pipelinePath(pipelineName), path);
  }

  async readPipelineFile(pipelineName: string, path: string): Promise<Buffer | undefined> {
    return readOrUndefined(this.pipelineFilePath(pipelineName, path));
  }

  async writePipelineFile(pipelineName: string, path: string, data: string | Uint8Array): Promise<string> {
    const file = this.pipelineFilePath(pipelineName, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomically(file, data);
    const info = await statOrUndefined(file);
    return `${info?.mtimeMs}:${info?.size}`;
  }

  async removePipelineFile(pipelineName: string, path: string): Promise<void> {
    await rm(this.pipelineFilePath(pipelineName, path), { force: true });
  }

  async listPipelineFiles(pipelineName: string, folder: string): Promise<string[] | undefined> {
    const pipelinePath = this.pipelinePath(pipelineName);
    const entries = await entriesOf(folder === "" ? pipelinePath : this.pipelineFilePath(pipelineName, folder));
    if (entries !== undefined) return entries.filter((e) => !e.directory).map((e) => e.name);
    return (await entriesOf(pipelinePath)) === undefined ? undefined : [];
  }

  contentSignature(): undefined {
    return undefined;
  }

  close(): void {}
}
