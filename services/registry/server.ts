// Thin gRPC glue for RegistryService: decode and validate, call one domain function, encode.
import { ERROR_TABLE, errorKindOf } from "../kit/calls/error-table.js";
import { Status } from "nice-grpc";
import { normalizeRequestedSource } from "../domain/energy-sources.js";
import { InvalidInputError, NotFoundError } from "../domain/errors.js";
import {
  type ImportPipelineRequest,
  ModelEventKind,
  type PublishModelRequest,
  type RegistryServiceImplementation,
} from "../generated/kepler/model/v1/registry_service.js";
import { exportPipeline } from "./domain/export-pipeline.js";
import { importPipeline } from "./domain/import-pipeline.js";
import { parseModelFilter, passesModelFilter } from "./domain/model-filter.js";
import { watchModelEvents } from "./domain/model-events.js";
import type { ModelCatalogue } from "./domain/model-catalogue.js";
import type { PipelineSummary } from "./domain/pipeline-state.js";
import { rollbackModel } from "./domain/rollback-model.js";
import { listBestModels, selectModel } from "./domain/select-model.js";
import {
  archiveMessages,
  budgetedArchiveMessages,
  spoolAnnouncedArchive,
  spoolHeaderAndChunks,
  type UploadSpooling,
  usingSpooledZip,
} from "./archive-stream.js";
import { observeExport, observeSelection, observeSelectionFailure } from "./metrics.js";
import {
  locationFromProto,
  locationToProto,
  machineSpecFromProto,
  machineSpecToProto,
  metadataToProto,
  nodeTypeMatchToProto,
  outputTypeFromProto,
  outputTypeToProto,
  EVENT_KINDS,
  pipelineToProto,
  selectionToProto,
} from "./proto-mapping.js";

const DEFAULT_PAGE_SIZE = 500;
/** Where a pipeline keeps its idle profiles (reference `profile/<source>.json`). */
const PROFILE_FOLDER = "profile";
const PIPELINE_FILE_PATH = /^(train_arguments\.json|preprocessed_data\/[A-Za-z0-9_.-]+\.csv|profile\/[A-Za-z0-9_-]+\.json)$/;

/** Bounds the glue enforces before handing work to the domain. */
export interface RegistryServiceLimits {
  /** How uploads are spooled: the largest archive (registry-max-upload-bytes), the upload budget, the folder. */
  spooling: UploadSpooling;
}

// A selection that finds nothing is counted by reason (the status its error maps to).
function countingFailures<T>(select: () => T): T {
  try {
    return select();
  } catch (error) {
    observeSelectionFailure(Status[ERROR_TABLE[errorKindOf(error)].grpc]);
    throw error;
  }
}

/** The RegistryService implementation over a model store. */
export function createRegistryService(store: ModelCatalogue, limits: RegistryServiceLimits): RegistryServiceImplementation {
  const summaryOf = (name: string): PipelineSummary => {
    const found = store.pipelines().find((p) => p.name === name);
    if (found === undefined) throw new NotFoundError(`pipeline "${name}"`);
    return found;
  };
  return {
    async publishModel(requests: AsyncIterable<PublishModelRequest>) {
      const upload = await spoolAnnouncedArchive(requests, limits.spooling);
      const { header } = upload;
      const { model, replaced } = await usingSpooledZip(upload, "archive", store.zipLimits, (zip) =>
        store.publish({
          location: locationFromProto(header.location, "header.location"),
          zip,
          weightJson: header.weightJson === "" ? undefined : header.weightJson,
        }),
      );
      return { metadata: metadataToProto(model, store), replaced };
    },

    async selectModel(request) {
      const { model, selection } = countingFailures(() =>
        selectModel(store, {
          featureNames: request.featureNames,
          unavailableFeatureNames: request.unavailableFeatureNames,
          outputType: outputTypeFromProto(request.outputType, "output_type", true),
          energySource: request.energySource,
          nodeType: request.nodeType,
          weight: request.weight,
          trainerName: request.trainerName,
          filter: request.filter,
          pipelineName: request.pipelineName,
          machineSpec: machineSpecFromProto(request.machineSpec),
          looseNodeType: request.looseNodeType,
        }),
      );
      observeSelection("grpc", selection);
      const response = { metadata: metadataToProto(model, store), selection: selectionToProto(selection) };
      if (request.metadataOnly) return response;
      if (request.weight) return { ...response, payload: { $case: "weightJson" as const, value: model.weightJson ?? "" } };
      return { ...response, payload: { $case: "archive" as const, value: await store.readArchive(model) } };
    },

    async listBestModels(request) {
      const entries = listBestModels(store, {
        energySource: request.energySource,
        outputType: outputTypeFromProto(request.outputType, "output_type"),
        featureGroup: request.featureGroup,
        nodeType: request.nodeType,
        filter: request.filter,
        pipelineName: request.pipelineName,
        machineSpec: machineSpecFromProto(request.machineSpec),
      });
      return {
        bestModels: entries.map((entry) => ({
          outputType: outputTypeToProto(entry.outputType),
          featureGroup: entry.featureGroup,
          modelName: entry.model.location.modelName,
          maeWatts: entry.model.maeWatts ?? 0,
          location: locationToProto(entry.model.location),
        })),
      };
    },

    async listModels(request) {
      const source = request.energySource === "" ? undefined : normalizeRequestedSource(request.energySource);
      const outputType = outputTypeFromProto(request.outputType, "output_type");
      const filter = parseModelFilter(request.filter);
      const matching = store
        .list()
        .filter(
          (m) =>
            (request.pipelineName === "" || m.location.pipelineName === request.pipelineName) &&
            (source === undefined || m.location.energySource === source) &&
            (outputType === undefined || m.location.outputType === outputType) &&
            (request.featureGroup === "" || m.location.featureGroup === request.featureGroup) &&
            (request.trainerName === "" || m.trainerName === request.trainerName) &&
            (request.nodeType === undefined || request.nodeType === -1 || m.nodeType === request.nodeType) &&
            passesModelFilter(m.metadata, filter),
        );
      const offset = request.pageToken === "" ? 0 : Number(request.pageToken);
      if (!Number.isInteger(offset) || offset < 0) throw new InvalidInputError("page_token", "not a token from a previous page");
      const size = request.pageSize === 0 ? DEFAULT_PAGE_SIZE : request.pageSize;
      const page = matching.slice(offset, offset + size);
      return {
        models: page.map((m) => metadataToProto(m, store)),
        nextPageToken: offset + size < matching.length ? String(offset + size) : "",
      };
    },

    async *getModelArchive(request) {
      const model = store.get(locationFromProto(request.location, "location"));
      yield* budgetedArchiveMessages(limits.spooling.budget, model.zipSizeBytes, () => store.readArchive(model), {
        metadata: metadataToProto(model, store),
      });
    },

    async getModelWeights(request) {
      const model = store.get(locationFromProto(request.location, "location"));
      if (model.weightJson === undefined)
        throw new NotFoundError(`weight.json of ${model.location.modelName} (its trainer has no Kepler weights)`);
      return { metadata: metadataToProto(model, store), weightJson: model.weightJson };
    },

    async listNodeTypes(request) {
      const pipelines = store.pipelines().filter((p) => request.pipelineName === "" || p.name === request.pipelineName);
      if (request.pipelineName !== "" && pipelines.length === 0) throw new NotFoundError(`pipeline "${request.pipelineName}"`);
      return {
        nodeTypes: pipelines.flatMap((p) =>
          p.index.list().map((entry) => ({
            pipelineName: p.name,
            nodeType: entry.nodeType,
            spec: machineSpecToProto(entry.spec),
            members: entry.members,
          })),
        ),
      };
    },

    async matchMachineSpec(request) {
      const source = normalizeRequestedSource(request.energySource);
      const pipelineName = request.pipelineName !== "" ? request.pipelineName : store.pipelineForSource(source);
      if (pipelineName === undefined) throw new NotFoundError(`a pipeline serving ${source}`);
      const index = store.pipeline(pipelineName)?.index;
      if (index === undefined) throw new NotFoundError(`pipeline "${pipelineName}"`);
      const spec =
        machineSpecFromProto(request.spec) ??
        machineSpecFromProto({ processor: "", cores: 0, chips: 0, memoryGib: 0, frequencyMhz: 0, vendor: "", threadsPerCore: 0 });
      const result = index.match(spec as NonNullable<typeof spec>, request.looseSearch);
      const entry = result.nodeType === -1 ? undefined : index.get(result.nodeType);
      return { match: nodeTypeMatchToProto({ ...result, pipelineName, nodeTypeSpec: entry?.spec }) };
    },

    async indexMachine(request) {
      const spec = machineSpecFromProto(request.spec);
      if (spec === undefined) throw new InvalidInputError("spec", "required");
      return store.indexMachine(request.pipelineName, request.machineId, spec);
    },

    async putPipelineMetadata(request) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(request.metadataJson);
      } catch (error) {
        throw new InvalidInputError("metadata_json", `not valid JSON (${(error as Error).message})`);
      }
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new InvalidInputError("metadata_json", "expected a JSON object");
      request.files.forEach((file, i) => {
        if (!PIPELINE_FILE_PATH.test(file.path))
          throw new InvalidInputError(
            `files[${i}].path`,
            "expected train_arguments.json, preprocessed_data/<name>.csv or profile/<name>.json (letters, digits, _ - .)",
          );
      });
      for (const file of request.files) await store.writePipelineFile(request.pipelineName, file.path, file.data);
      await store.writePipelineFile(request.pipelineName, "metadata.json", request.metadataJson);
      return { pipeline: pipelineToProto(summaryOf(request.pipelineName)) };
    },

    async listPipelineMetadata(request) {
      const wanted = new Set(request.pipelineNames);
      const pipelines = store.pipelines().filter((p) => wanted.size === 0 || wanted.has(p.name));
      return { pipelines: pipelines.map(pipelineToProto) };
    },

    async getPipelineProfiles(request) {
      if (request.pipelineName === "") throw new InvalidInputError("pipeline_name", "required");
      const files = await store.readPipelineFiles(request.pipelineName, PROFILE_FOLDER);
      return { files: files.map(({ path, data }) => ({ path, data })) };
    },

    async importPipeline(requests: AsyncIterable<ImportPipelineRequest>) {
      const upload = await spoolHeaderAndChunks(requests, limits.spooling, (h) => {
        // No RPC names a file on the server (issue 17): the pipeline zip is always streamed.
        if (h.serverPath !== "") throw new InvalidInputError("header.server_path", "not accepted; stream the zip");
      });
      const { header } = upload;
      if (upload.sizeBytes === 0) {
        await upload.discard();
        throw new InvalidInputError("archive_chunk", "required: stream the pipeline zip");
      }
      const result = await usingSpooledZip(upload, "archive_chunk", store.zipLimits, (bytes) =>
        importPipeline(store, bytes, { pipelineName: header.pipelineName, replace: header.replace, force: header.force }),
      );
      return {
        pipeline: pipelineToProto(result.pipeline),
        importedModelCount: result.importedModelCount,
        skippedModels: result.skippedModels,
      };
    },

    async *exportPipeline(request) {
      const bytes = await exportPipeline(store, request.pipelineName);
      observeExport();
      yield* archiveMessages(bytes, { archiveSizeBytes: bytes.byteLength });
    },

    async *watchModels(request, context) {
      const source = request.energySource === "" ? undefined : normalizeRequestedSource(request.energySource);
      const outputType = outputTypeFromProto(request.outputType, "output_type");
      const events = watchModelEvents(store.events, context.signal);
      yield {
        kind: ModelEventKind.MODEL_EVENT_KIND_WATCHING,
        eventTimeSeconds: Date.now() / 1000,
        sequence: store.events.currentSequence,
      };
      for await (const event of events) {
        const { location } = event.model;
        if (request.pipelineName !== "" && location.pipelineName !== request.pipelineName) continue;
        if (source !== undefined && location.energySource !== source) continue;
        if (outputType !== undefined && location.outputType !== outputType) continue;
        yield {
          kind: EVENT_KINDS[event.kind],
          metadata: metadataToProto(event.model, store),
          eventTimeSeconds: event.eventTimeSeconds,
          sequence: event.sequence,
        };
      }
    },

    async rollbackModel(request) {
      const result = await rollbackModel(store, locationFromProto(request.location, "location"));
      return {
        metadata: metadataToProto(result.model, store),
        fromVersion: result.fromVersion,
        toVersion: result.toVersion,
        remainingVersions: result.remainingVersions,
      };
    },
  };
}
