// The registry's catalogue: an in-memory view of one storage (storage/), read at start and on every
// rescan, that selection, listing and the model browser read without touching the storage. Publishes,
// removals and pipeline files go through here to the storage, atomically per model, and models are
// announced on `events`. With a shared store (shared-store.ts) every write goes there first, and the
// storage is this registry's cache of it.
import { assertEnergySource, componentsOf } from "../../domain/energy-sources.js";
import { InvalidInputError, NotFoundError } from "../../domain/errors.js";
import {
  assertPathSegment,
  DEFAULT_ZIP_LIMITS,
  type ModelLocation,
  type OutputTypeName,
  type ZipLimits,
} from "../../models/index.js";
import { NodeTypeIndex, type NodeSpec } from "../../node-types/index.js";
import { NODE_TYPE_INDEX_FILE, PIPELINE_METADATA_FILE } from "../storage/model-layout.js";
import type { ModelStorage, WriteStep } from "../storage/model-storage.js";
import type { ModelCatalogueDeps, WriteOptions } from "./catalogue-deps.js";
import { type CatalogueEntry, keepWritesDuringScan, scanStorage } from "./catalogue-scan.js";
import { KeyedLock } from "./keyed-lock.js";
import { type ModelEventKind, ModelEventHub } from "./model-events.js";
import { modelTableFileName, renderModelTable } from "./model-table.js";
import { modelToPublish, type PublishInput } from "./model-to-publish.js";
import { parseNodeTypeIndex, type PipelineState, type PipelineSummary } from "./pipeline-state.js";
import { machineSpecOf, pipelineForSource, pipelinesToSearch } from "./pipeline-choice.js";
import { beforeReplacing, signedForPublish } from "./publish-lifecycle.js";
import { locationKey, type StoredModel } from "./stored-model.js";

/** The registry's models and pipelines over one storage (see the file comment). */
export class ModelCatalogue {
  readonly events = new ModelEventHub();
  private entries = new Map<string, CatalogueEntry>();
  private pipelineStates = new Map<string, PipelineState>();
  private readonly unservable = new Map<string, string>();
  private readonly locks = new KeyedLock();

  private constructor(
    readonly storage: ModelStorage,
    private readonly deps: ModelCatalogueDeps,
  ) {}

  /** Reads every pipeline and model of the storage. */
  static async open(storage: ModelStorage, deps: ModelCatalogueDeps): Promise<ModelCatalogue> {
    const catalogue = new ModelCatalogue(storage, deps);
    await catalogue.scan(true);
    return catalogue;
  }

  /** Bounds every archive read by the catalogue (and by imports into it) must respect. */
  get zipLimits(): ZipLimits {
    return this.deps.zipLimits ?? DEFAULT_ZIP_LIMITS;
  }

  private now(): number {
    return this.deps.nowSeconds?.() ?? Date.now() / 1000;
  }

  /** Reads the storage again, announcing models written, changed or removed by other processes. */
  async rescan(): Promise<void> {
    await this.scan(false);
  }

  private async scan(initial: boolean): Promise<void> {
    const atStart = new Map(this.entries);
    const context = { logger: this.deps.logger, zipLimits: this.zipLimits, known: atStart, unservable: this.unservable };
    const scanned = await scanStorage(this.storage, context);
    const view = keepWritesDuringScan(scanned, atStart, { entries: this.entries, pipelines: this.pipelineStates });
    const previous = this.entries;
    this.entries = view.entries;
    this.pipelineStates = view.pipelines;
    if (initial) return;
    for (const [key, entry] of view.entries) {
      const before = previous.get(key);
      if (before === undefined || before.signature !== entry.signature) this.emit("published", entry.model);
    }
    for (const [key, entry] of previous) if (!view.entries.has(key)) this.emit("removed", entry.model);
  }

  private emit(kind: ModelEventKind, model: StoredModel): void {
    this.events.emit(kind, model, this.now());
  }

  /** Where earlier versions are kept (model-versions.ts): the shared store when there is one. */
  get versionStorage(): ModelStorage {
    return this.deps.shared?.storage ?? this.storage;
  }

  /** Stores a model atomically and announces it; own publishes are signed, gated, versioned (`lifecycle`), a rollback's are not. */
  async publish(
    input: PublishInput,
    options: WriteOptions & {
      kind?: "published" | "imported";
      rollback?: boolean;
      onStep?: (step: WriteStep | "store-staged") => void | Promise<void>;
    } = {},
  ): Promise<{ model: StoredModel; replaced: boolean }> {
    const lifecycle = options.fromShared === true || options.rollback === true ? undefined : this.deps.lifecycle;
    const signed = signedForPublish(input, lifecycle, this.zipLimits);
    const { location, model, files } = modelToPublish(signed, this.zipLimits, this.now());
    const key = locationKey(location);
    return this.locks.run(key, async () => {
      const previous = this.entries.get(key);
      await beforeReplacing(lifecycle, this.versionStorage, previous?.model, model, options.kind ?? "published");
      const shared = options.fromShared === true ? undefined : this.deps.shared;
      await shared?.putModel(location, files, () => options.onStep?.("store-staged"));
      const written = await this.storage.writeModel(location, files, options.onStep);
      // The publish time is the storage's, as a rescan or restart reads it (not the earlier clock).
      model.publishedTimeSeconds = written.modifiedTimeSeconds;
      this.entries.set(key, { model, signature: written.signature });
      if (!this.pipelineStates.has(location.pipelineName)) {
        const indexText = (await this.storage.readPipelineFile(location.pipelineName, NODE_TYPE_INDEX_FILE))?.toString("utf8");
        const index = parseNodeTypeIndex(location.pipelineName, indexText, this.deps.logger);
        this.pipelineStates.set(location.pipelineName, { name: location.pipelineName, index });
      }
      await this.writeModelTable(location, options);
      this.emit(options.kind ?? "published", model);
      return { model, replaced: previous !== undefined };
    });
  }

  /** Removes a model and announces it. */
  async remove(location: ModelLocation, options: WriteOptions = {}): Promise<void> {
    const key = locationKey(location);
    await this.locks.run(key, async () => {
      const entry = this.entries.get(key);
      if (entry === undefined) return;
      if (options.fromShared !== true) await this.deps.shared?.removeModel(location);
      await this.storage.removeModel(location);
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
    const fileName = modelTableFileName(energySource, outputType);
    await this.locks.run(`table:${pipelineName}/${fileName}`, async () => {
      const models = this.list().filter(
        (m) =>
          m.location.pipelineName === pipelineName &&
          m.location.energySource === energySource &&
          m.location.outputType === outputType,
      );
      if (models.length === 0) {
        await this.storage.removePipelineFile(pipelineName, fileName);
        return;
      }
      const table = renderModelTable(models, componentsOf(assertEnergySource(energySource)));
      await this.storage.writePipelineFile(pipelineName, fileName, table);
      // The shared store's copy is a convenience for kepler-model-db readers (replicas derive their own):
      // the model is already published, so a failure here is logged, not returned.
      const shared = this.deps.shared;
      if (options.fromShared !== true && shared !== undefined)
        await shared
          .putPipelineFile(pipelineName, fileName, table)
          .catch((error: unknown) =>
            this.deps.logger.warn({ store: shared.name, reason: (error as Error).message }, "model table not uploaded"),
          );
    });
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

  /** The zip bytes of a model as the storage holds them now. */
  async readArchive(model: StoredModel): Promise<Buffer> {
    const zip = await this.storage.readArchive(model.location);
    if (zip === undefined) throw new NotFoundError(`model ${locationKey(model.location)}`);
    return zip;
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

  /** The pipelines a selection that names no pipeline searches (pipeline-choice.ts). */
  pipelinesToSearch(energySource: string): string[] {
    return pipelinesToSearch(this.list(), energySource, this.deps.sourcePipelines);
  }

  /** The one pipeline MatchMachineSpec uses when a request names none (pipeline-choice.ts). */
  pipelineForSource(energySource: string): string | undefined {
    return pipelineForSource(this.list(), energySource, this.deps.sourcePipelines);
  }

  /** The machine spec recorded for a model: its metadata's machine_spec, else its node type's attributes. */
  machineSpecOf(model: StoredModel): NodeSpec | undefined {
    return machineSpecOf(model, this.pipelineStates.get(model.location.pipelineName)?.index);
  }

  /** Adds a training machine to a pipeline's node-type index and saves node_type_index.json. */
  async indexMachine(pipelineName: string, machineId: string, spec: NodeSpec): Promise<{ nodeType: number; created: boolean }> {
    assertPathSegment(pipelineName, "pipeline_name");
    if (machineId === "") throw new InvalidInputError("machine_id", "required");
    return this.locks.run(`pipeline:${pipelineName}`, async () => {
      const state = this.pipelineStates.get(pipelineName) ?? { name: pipelineName, index: new NodeTypeIndex() };
      const index = NodeTypeIndex.fromJson(state.index.toJson());
      const result = index.indexMachine(machineId, spec);
      const text = JSON.stringify(index.toJson());
      await this.deps.shared?.putPipelineFile(pipelineName, NODE_TYPE_INDEX_FILE, text);
      await this.storage.writePipelineFile(pipelineName, NODE_TYPE_INDEX_FILE, text);
      this.pipelineStates.set(pipelineName, { ...state, index });
      return result;
    });
  }

  /** Writes a pipeline-level file (metadata.json, node_type_index.json, a README, profile/<source>.json) atomically. */
  async writePipelineFile(
    pipelineName: string,
    path: string,
    data: string | Uint8Array,
    options: WriteOptions = {},
  ): Promise<void> {
    assertPathSegment(pipelineName, "pipeline_name");
    await this.locks.run(`pipeline:${pipelineName}`, async () => {
      if (options.fromShared !== true) await this.deps.shared?.putPipelineFile(pipelineName, path, data);
      await this.storage.writePipelineFile(pipelineName, path, data);
      const state = this.pipelineStates.get(pipelineName) ?? { name: pipelineName, index: new NodeTypeIndex() };
      const text = typeof data === "string" ? data : new TextDecoder().decode(data);
      if (path === PIPELINE_METADATA_FILE) state.metadataText = text;
      if (path === NODE_TYPE_INDEX_FILE) state.index = parseNodeTypeIndex(pipelineName, text, this.deps.logger);
      this.pipelineStates.set(pipelineName, state);
    });
  }

  /** The names of the files in a folder of a pipeline ("" for its top), sorted; none when there are none. */
  async listPipelineFiles(pipelineName: string, folder: string): Promise<string[]> {
    return (await this.storage.listPipelineFiles(assertPathSegment(pipelineName, "pipeline_name"), folder)) ?? [];
  }

  /** A pipeline file's bytes; undefined when there is none. */
  async readPipelineFile(pipelineName: string, path: string): Promise<Buffer | undefined> {
    return this.storage.readPipelineFile(assertPathSegment(pipelineName, "pipeline_name"), path);
  }

  /**
   * The `.json` files of one folder of a pipeline (e.g. `profile`), as paths relative to the pipeline;
   * NotFoundError for an unknown pipeline, none when the folder does not exist.
   */
  async readPipelineFiles(pipelineName: string, folder: string): Promise<Array<{ path: string; data: Buffer }>> {
    assertPathSegment(pipelineName, "pipeline_name");
    const names = await this.storage.listPipelineFiles(pipelineName, folder);
    if (names === undefined && !this.pipelineStates.has(pipelineName)) throw new NotFoundError(`pipeline ${pipelineName}`);
    const files = (names ?? []).filter((name) => name.endsWith(".json"));
    const read = await Promise.all(
      files.map(async (name) => ({
        path: `${folder}/${name}`,
        data: await this.storage.readPipelineFile(pipelineName, `${folder}/${name}`),
      })),
    );
    return read.flatMap(({ path, data }) => (data === undefined ? [] : [{ path, data }]));
  }

  /** Stops announcing events (server shutdown). */
  close(): void {
    this.events.close();
  }
}
