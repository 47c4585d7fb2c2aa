// The registry's storage: the local MODEL_PATH folder in the kepler-model-db layout, scanned at start
// (interrupted publishes recovered first) and mirrored in memory for selection. Publishes and removals
// go through here, are atomic per model (atomic-publish.ts), and are announced on `events`.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ENERGY_SOURCE_COMPONENTS, assertEnergySource, componentsOf } from "../../domain/energy-sources.js";
import { InvalidInputError, NotFoundError } from "../../domain/errors.js";
import type { DomainLogger } from "../../kit/observe/logger.js";
import {
  assertPathSegment,
  DEFAULT_ZIP_LIMITS,
  type ModelLocation,
  namedWeightsText,
  type OutputTypeName,
  WEIGHT_FILE,
  readZip,
  type ZipLimits,
} from "../../models/index.js";
import { NodeTypeIndex, type NodeSpec } from "../../node-types/index.js";
import { type ModelFiles, recoverGroup, type PublishStep, temporarySuffix, writeModelFiles } from "./atomic-publish.js";
import { type ModelEventKind, ModelEventHub } from "./model-events.js";
import { modelTableFileName, renderModelTable } from "./model-table.js";
import { describeStoredModel, locationKey, type StoredModel, UnservableModelError } from "./stored-model.js";

export const OUTPUT_TYPE_NAMES: readonly OutputTypeName[] = ["AbsPower", "DynPower"];
const NODE_TYPE_INDEX_FILE = "node_type_index.json";
const PIPELINE_METADATA_FILE = "metadata.json";

/** What the store needs. */
export interface ModelStoreDeps {
  logger: DomainLogger;
  /** Pipeline serving each energy source when a request names none; otherwise every pipeline of the source is searched. */
  sourcePipelines?: Readonly<Record<string, string>>;
  nowSeconds?: () => number;
  /** Bounds on archives read from clients and from disk (default DEFAULT_ZIP_LIMITS). */
  zipLimits?: ZipLimits;
  /** A shared store (an S3 bucket) written before the folder, which is then its local cache. */
  remote?: RemoteModelStore;
}

/**
 * A store shared by several registries (bucket-replica.ts). Every write goes there first; a failure
 * (UnavailableError naming the store) leaves the local folder untouched.
 */
export interface RemoteModelStore {
  /** `s3://bucket/prefix`, for messages. */
  readonly name: string;
  /** Writes a model; `onStaged` runs when everything but the zip (what makes the model exist) is written. */
  putModel(location: ModelLocation, files: ModelFiles, onStaged?: () => void | Promise<void>): Promise<void>;
  removeModel(location: ModelLocation): Promise<void>;
  putPipelineFile(pipelineName: string, fileName: string, data: string | Uint8Array): Promise<void>;
}

/** Writes that apply what the shared store already holds (a pull) skip it. */
export interface WriteOptions {
  fromRemote?: boolean;
}

/** A stored pipeline. */
export interface PipelineState {
  name: string;
  index: NodeTypeIndex;
  /** The pipeline's metadata.json text; undefined when it has none. */
  metadataText?: string;
}

/** A pipeline as listed. */
export interface PipelineSummary extends PipelineState {
  energySources: string[];
  modelCount: number;
}

/** A model to publish: the zip bytes and, optionally, weight.json text given beside it. */
export interface PublishInput {
  location: ModelLocation;
  zip: Uint8Array;
  weightJson?: string;
}

interface ScanEntry {
  model: StoredModel;
  signature: string;
}

async function statOrUndefined(path: string): Promise<{ mtimeMs: number; size: number } | undefined> {
  try {
    const s = await stat(path);
    return { mtimeMs: s.mtimeMs, size: s.size };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function readTextOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

async function listDirectories(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Writes a small file next to its destination and renames it into place. */
export async function writeFileAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = join(path, "..", `.${path.slice(path.lastIndexOf("/") + 1)}.tmp-${temporarySuffix()}`);
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The registry's model folder and its in-memory mirror. */
export class ModelStore {
  readonly events = new ModelEventHub();
  private entries = new Map<string, ScanEntry>();
  private pipelineStates = new Map<string, PipelineState>();
  private readonly unservable = new Map<string, string>();
  private readonly locks = new Map<string, Promise<unknown>>();

  private constructor(
    readonly modelPath: string,
    private readonly deps: ModelStoreDeps,
  ) {}

  /** Opens MODEL_PATH (created if missing): recovers interrupted publishes, then scans every pipeline. */
  static async open(modelPath: string, deps: ModelStoreDeps): Promise<ModelStore> {
    await mkdir(modelPath, { recursive: true });
    // Scratch folders of imports interrupted by a crash.
    for (const name of await readdir(modelPath)) {
      if (!name.startsWith(".import-")) continue;
      // A leftover that cannot be removed is logged, not fatal: it is never read.
      await rm(join(modelPath, name), { recursive: true, force: true }).catch((error: unknown) =>
        deps.logger.warn(
          { path: join(modelPath, name), reason: (error as Error).message },
          "could not remove an import scratch folder",
        ),
      );
    }
    const store = new ModelStore(modelPath, deps);
    await store.scan(true);
    return store;
  }

  /** Bounds every archive read by the store (and by imports into it) must respect. */
  get zipLimits(): ZipLimits {
    return this.deps.zipLimits ?? DEFAULT_ZIP_LIMITS;
  }

  private now(): number {
    return this.deps.nowSeconds?.() ?? Date.now() / 1000;
  }

  /** Re-reads the folder, announcing models written, changed or removed by other processes. */
  async rescan(): Promise<void> {
    await this.scan(false);
  }

  private async scan(initial: boolean): Promise<void> {
    const found = new Map<string, ScanEntry>();
    const pipelines = new Map<string, PipelineState>();
    for (const pipelineName of await listDirectories(this.modelPath)) {
      const pipelinePath = join(this.modelPath, pipelineName);
      const sources = (await listDirectories(pipelinePath)).filter((name) => name in ENERGY_SOURCE_COMPONENTS);
      const metadataText = await readTextOrUndefined(join(pipelinePath, PIPELINE_METADATA_FILE));
      const indexText = await readTextOrUndefined(join(pipelinePath, NODE_TYPE_INDEX_FILE));
      if (sources.length === 0 && metadataText === undefined && indexText === undefined) continue;
      pipelines.set(pipelineName, { name: pipelineName, index: this.parseIndex(pipelineName, indexText), metadataText });
      for (const energySource of sources) {
        for (const outputType of OUTPUT_TYPE_NAMES) {
          const outputPath = join(pipelinePath, energySource, outputType);
          for (const featureGroup of await listDirectories(outputPath)) {
            const groupPath = join(outputPath, featureGroup);
            if (initial) {
              // recoverGroup reports instead of throwing: a damaged journal must never stop the server.
              for (const action of await recoverGroup(groupPath))
                this.deps.logger.warn({ groupPath, action }, "recovered an interrupted publish");
            }
            await this.scanGroup({ pipelineName, energySource, outputType, featureGroup }, groupPath, found);
          }
        }
      }
    }
    const previous = this.entries;
    this.entries = found;
    this.pipelineStates = pipelines;
    if (initial) return;
    for (const [key, entry] of found) {
      const before = previous.get(key);
      if (before === undefined || before.signature !== entry.signature) this.emit("published", entry.model);
    }
    for (const [key, entry] of previous) if (!found.has(key)) this.emit("removed", entry.model);
  }

  private parseIndex(pipelineName: string, text: string | undefined): NodeTypeIndex {
    if (text === undefined) return new NodeTypeIndex();
    try {
      return NodeTypeIndex.fromJson(JSON.parse(text), `${pipelineName}/${NODE_TYPE_INDEX_FILE}`);
    } catch (error) {
      this.deps.logger.warn(
        { pipeline: pipelineName, reason: (error as Error).message },
        "ignoring an unreadable node_type_index.json",
      );
      return new NodeTypeIndex();
    }
  }

  private async scanGroup(
    group: Omit<ModelLocation, "modelName">,
    groupPath: string,
    found: Map<string, ScanEntry>,
  ): Promise<void> {
    let names: string[];
    try {
      names = await readdir(groupPath);
    } catch {
      return;
    }
    for (const file of names) {
      if (file.startsWith(".") || !file.endsWith(".zip")) continue;
      const location: ModelLocation = { ...group, modelName: file.slice(0, -4) };
      const key = locationKey(location);
      const zipPath = join(groupPath, file);
      const zipStat = await statOrUndefined(zipPath);
      if (zipStat === undefined) continue;
      const siblingPath = join(groupPath, `${location.modelName}.json`);
      const siblingStat = await statOrUndefined(siblingPath);
      const signature = `${zipStat.mtimeMs}:${zipStat.size}:${siblingStat?.mtimeMs ?? "-"}`;
      const known = this.entries.get(key);
      if (known !== undefined && known.signature === signature) {
        found.set(key, known);
        continue;
      }
      try {
        const zip = await readFile(zipPath);
        const externalWeightJson = siblingStat === undefined ? undefined : await readTextOrUndefined(siblingPath);
        const model = describeStoredModel(location, readZip(zip, file, this.zipLimits), {
          zipPath,
          zipSizeBytes: zip.byteLength,
          publishedTimeSeconds: zipStat.mtimeMs / 1000,
          externalWeightJson,
        });
        found.set(key, { model, signature });
        this.unservable.delete(key);
      } catch (error) {
        if (this.unservable.get(key) !== signature) {
          const reason = (error as Error).message;
          const level = error instanceof UnservableModelError ? "info" : "warn";
          this.deps.logger[level]({ model: key, reason }, "model not served");
          this.unservable.set(key, signature);
        }
      }
    }
  }

  private emit(kind: ModelEventKind, model: StoredModel): void {
    this.events.emit(kind, model, this.now());
  }

  // Serialises work on one key (a model or a pipeline) within this process.
  private async withLock<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(body, body);
    const settled = run.catch(() => undefined);
    this.locks.set(key, settled);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    }
  }

  /**
   * Stores a model atomically and announces it. The archive must hold metadata.json naming this model
   * and files this server can run (our JSON component files, or a weight.json given in or beside it).
   */
  async publish(
    input: PublishInput,
    options: WriteOptions & {
      kind?: "published" | "imported";
      onStep?: (step: PublishStep | "store-staged") => void | Promise<void>;
    } = {},
  ): Promise<{ model: StoredModel; replaced: boolean }> {
    const location = this.assertLocation(input.location);
    const entries = readZip(input.zip, "archive", this.zipLimits);
    const groupPath = join(
      this.modelPath,
      location.pipelineName,
      location.energySource,
      location.outputType,
      location.featureGroup,
    );
    const zipPath = join(groupPath, `${location.modelName}.zip`);
    let model: StoredModel;
    try {
      model = describeStoredModel(location, entries, {
        zipPath,
        zipSizeBytes: input.zip.byteLength,
        publishedTimeSeconds: this.now(),
        externalWeightJson: input.weightJson === "" ? undefined : input.weightJson,
      });
    } catch (error) {
      if (error instanceof UnservableModelError) throw new InvalidInputError("archive", error.message);
      throw error;
    }
    // The folder's weight.json names its model (namedWeightsText); the sibling <model>.json keeps the
    // reference's component-only shape (model.weightJson).
    const folderEntries = entries.filter((e) => e.name !== WEIGHT_FILE);
    if (model.weightJson !== undefined) {
      folderEntries.push({
        name: WEIGHT_FILE,
        data: new TextEncoder().encode(namedWeightsText(model.weightJson, location.modelName)),
      });
    }
    const key = locationKey(location);
    const files: ModelFiles = { zip: input.zip, weightJson: model.weightJson, folderEntries };
    return this.withLock(key, async () => {
      const replaced = this.entries.has(key);
      const remote = options.fromRemote === true ? undefined : this.deps.remote;
      await remote?.putModel(location, files, () => options.onStep?.("store-staged"));
      await writeModelFiles(groupPath, location.modelName, files, options.onStep);
      const [written, sibling] = await Promise.all([
        statOrUndefined(zipPath),
        statOrUndefined(join(groupPath, `${location.modelName}.json`)),
      ]);
      // The publish time is the zip's mtime, as a rescan or restart reads it (not the earlier clock).
      if (written !== undefined) model.publishedTimeSeconds = written.mtimeMs / 1000;
      this.entries.set(key, { model, signature: `${written?.mtimeMs}:${written?.size}:${sibling?.mtimeMs ?? "-"}` });
      if (!this.pipelineStates.has(location.pipelineName)) {
        const indexText = await readTextOrUndefined(join(this.modelPath, location.pipelineName, NODE_TYPE_INDEX_FILE));
        this.pipelineStates.set(location.pipelineName, {
          name: location.pipelineName,
          index: this.parseIndex(location.pipelineName, indexText),
        });
      }
      await this.writeModelTable(location, options);
      this.emit(options.kind ?? "published", model);
      return { model, replaced };
    });
  }

  /** Removes a model (zip first: the zip is what makes it exist) and announces it. */
  async remove(location: ModelLocation, options: WriteOptions = {}): Promise<void> {
    const key = locationKey(location);
    await this.withLock(key, async () => {
      const entry = this.entries.get(key);
      if (entry === undefined) return;
      if (options.fromRemote !== true) await this.deps.remote?.removeModel(location);
      const groupPath = join(
        this.modelPath,
        location.pipelineName,
        location.energySource,
        location.outputType,
        location.featureGroup,
      );
      await rm(join(groupPath, `${location.modelName}.zip`), { force: true });
      await rm(join(groupPath, `${location.modelName}.json`), { force: true });
      await rm(join(groupPath, location.modelName), { recursive: true, force: true });
      this.entries.delete(key);
      await this.writeModelTable(location, options);
      this.emit("removed", entry.model);
    });
  }

  /**
   * Rewrites the pipeline's `<source>_<OutputType>_model_metadata.csv` from the models held now.
   * Serialised per table so a slower writer cannot replace a newer table with an older one.
   */
  private async writeModelTable(location: ModelLocation, options: WriteOptions): Promise<void> {
    const { pipelineName, energySource, outputType } = location;
    const tablePath = join(this.modelPath, pipelineName, modelTableFileName(energySource, outputType));
    await this.withLock(`table:${tablePath}`, async () => {
      const models = this.list().filter(
        (model) =>
          model.location.pipelineName === pipelineName &&
          model.location.energySource === energySource &&
          model.location.outputType === outputType,
      );
      if (models.length === 0) {
        await rm(tablePath, { force: true });
        return;
      }
      const table = renderModelTable(models, componentsOf(assertEnergySource(energySource)));
      await writeFileAtomically(tablePath, table);
      // The shared store's copy is a convenience for kepler-model-db readers (replicas derive their own):
      // the model is already published, so a failure here is logged, not returned.
      if (options.fromRemote !== true)
        await this.deps.remote
          ?.putPipelineFile(pipelineName, modelTableFileName(energySource, outputType), table)
          .catch((error: unknown) =>
            this.deps.logger.warn(
              { store: this.deps.remote?.name, reason: (error as Error).message },
              "model table not uploaded",
            ),
          );
    });
  }

  private assertLocation(location: ModelLocation): ModelLocation {
    for (const [field, value] of [
      ["location.pipeline_name", location.pipelineName],
      ["location.feature_group", location.featureGroup],
      ["location.model_name", location.modelName],
    ] as const) {
      assertPathSegment(value, field);
    }
    const energySource = assertEnergySource(location.energySource, "location.energy_source");
    if (!OUTPUT_TYPE_NAMES.includes(location.outputType)) throw new InvalidInputError("location.output_type", "required");
    return { ...location, energySource };
  }

  /** Every stored model, ordered by pipeline, source, output type, feature group, name. */
  list(): StoredModel[] {
    return [...this.entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e.model);
  }

  /** The models of one group, ordered by name. */
  group(pipelineName: string, energySource: string, outputType: OutputTypeName, featureGroup: string): StoredModel[] {
    return this.list().filter(
      (m) =>
        m.location.pipelineName === pipelineName &&
        m.location.energySource === energySource &&
        m.location.outputType === outputType &&
        m.location.featureGroup === featureGroup,
    );
  }

  /** A stored model; NotFoundError when there is none at the location. */
  get(location: ModelLocation): StoredModel {
    const entry = this.entries.get(
      locationKey({ ...location, energySource: assertEnergySource(location.energySource, "location.energy_source") }),
    );
    if (entry === undefined) throw new NotFoundError(`model ${locationKey(location)}`);
    return entry.model;
  }

  /** The zip bytes of a model (the file as it was when opened, even if replaced meanwhile). */
  async readArchive(model: StoredModel): Promise<Buffer> {
    try {
      return await readFile(model.zipPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new NotFoundError(`model ${locationKey(model.location)}`);
      throw error;
    }
  }

  /** Stored pipelines, by name. */
  pipelines(): PipelineSummary[] {
    const models = this.list();
    return [...this.pipelineStates.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((state) => {
        const own = models.filter((m) => m.location.pipelineName === state.name);
        return { ...state, energySources: [...new Set(own.map((m) => m.location.energySource))].sort(), modelCount: own.length };
      });
  }

  /** A pipeline's state, or undefined. */
  pipeline(name: string): PipelineState | undefined {
    return this.pipelineStates.get(name);
  }

  /**
   * The pipelines a selection that names no pipeline searches: the one pinned for the source by
   * --source-pipelines, else every pipeline holding models of the source, by name.
   */
  pipelinesToSearch(energySource: string): string[] {
    const configured = this.deps.sourcePipelines?.[energySource];
    if (configured !== undefined) return [configured];
    const names = new Set(
      this.list()
        .filter((m) => m.location.energySource === energySource)
        .map((m) => m.location.pipelineName),
    );
    return [...names].sort();
  }

  /**
   * The one pipeline MatchMachineSpec uses when a request names none: the configured one, else the
   * pipeline holding the most recently published model of that source (the reference took whichever
   * pipeline os.listdir listed last; docs/deviations.md).
   */
  pipelineForSource(energySource: string): string | undefined {
    const configured = this.deps.sourcePipelines?.[energySource];
    if (configured !== undefined) return configured;
    let best: { name: string; time: number } | undefined;
    for (const model of this.list()) {
      if (model.location.energySource !== energySource) continue;
      const candidate = { name: model.location.pipelineName, time: model.publishedTimeSeconds };
      if (best === undefined || candidate.time > best.time || (candidate.time === best.time && candidate.name > best.name))
        best = candidate;
    }
    return best?.name;
  }

  /** The machine spec recorded for a model: its metadata's machine_spec, else its node type's attributes. */
  machineSpecOf(model: StoredModel): NodeSpec | undefined {
    const own = model.metadata.machine_spec;
    if (typeof own === "object" && own !== null) {
      const spec = own as Record<string, unknown>;
      return {
        processor: typeof spec.processor === "string" ? spec.processor : null,
        cores: typeof spec.cores === "number" ? spec.cores : null,
        chips: typeof spec.chips === "number" ? spec.chips : null,
        memory: typeof spec.memory === "number" ? spec.memory : null,
        frequency: typeof spec.frequency === "number" ? spec.frequency : null,
      };
    }
    return this.pipelineStates.get(model.location.pipelineName)?.index.get(model.nodeType)?.spec;
  }

  /** Adds a training machine to a pipeline's node-type index and saves node_type_index.json. */
  async indexMachine(pipelineName: string, machineId: string, spec: NodeSpec): Promise<{ nodeType: number; created: boolean }> {
    assertPathSegment(pipelineName, "pipeline_name");
    if (machineId === "") throw new InvalidInputError("machine_id", "required");
    return this.withLock(`pipeline:${pipelineName}`, async () => {
      const state = this.pipelineStates.get(pipelineName) ?? { name: pipelineName, index: new NodeTypeIndex() };
      const index = NodeTypeIndex.fromJson(state.index.toJson());
      const result = index.indexMachine(machineId, spec);
      const text = JSON.stringify(index.toJson());
      await this.deps.remote?.putPipelineFile(pipelineName, NODE_TYPE_INDEX_FILE, text);
      await mkdir(join(this.modelPath, pipelineName), { recursive: true });
      await writeFileAtomically(join(this.modelPath, pipelineName, NODE_TYPE_INDEX_FILE), text);
      this.pipelineStates.set(pipelineName, { ...state, index });
      return result;
    });
  }

  /** Writes a pipeline-level file (metadata.json, node_type_index.json, a README) atomically. */
  async writePipelineFile(
    pipelineName: string,
    fileName: string,
    data: string | Uint8Array,
    options: WriteOptions = {},
  ): Promise<void> {
    assertPathSegment(pipelineName, "pipeline_name");
    await this.withLock(`pipeline:${pipelineName}`, async () => {
      if (options.fromRemote !== true) await this.deps.remote?.putPipelineFile(pipelineName, fileName, data);
      const path = join(this.modelPath, pipelineName, fileName);
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomically(path, data);
      const state = this.pipelineStates.get(pipelineName) ?? { name: pipelineName, index: new NodeTypeIndex() };
      const text = typeof data === "string" ? data : new TextDecoder().decode(data);
      if (fileName === PIPELINE_METADATA_FILE) state.metadataText = text;
      if (fileName === NODE_TYPE_INDEX_FILE) state.index = this.parseIndex(pipelineName, text);
      this.pipelineStates.set(pipelineName, state);
    });
  }

  /**
   * The `.json` files of one folder of a pipeline (e.g. `profile`), as paths relative to the pipeline;
   * NotFoundError for an unknown pipeline, none when the folder does not exist.
   */
  async readPipelineFiles(pipelineName: string, folder: string): Promise<Array<{ path: string; data: Buffer }>> {
    assertPathSegment(pipelineName, "pipeline_name");
    if (!this.pipelineStates.has(pipelineName) && !(await isDirectory(join(this.modelPath, pipelineName))))
      throw new NotFoundError(`pipeline ${pipelineName}`);
    let names: string[];
    try {
      names = await readdir(join(this.modelPath, pipelineName, folder));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const files = names.filter((name) => name.endsWith(".json") && !name.startsWith(".")).sort();
    return Promise.all(
      files.map(async (name) => ({
        path: `${folder}/${name}`,
        data: await readFile(join(this.modelPath, pipelineName, folder, name)),
      })),
    );
  }

  /** Stops announcing events (server shutdown). */
  close(): void {
    this.events.close();
  }
}
