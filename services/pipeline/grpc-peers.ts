// PipelinePeers over the peers' generated gRPC clients: extractor, isolator, trainer and registry.
// Bulk data travels as the contracts say: Prometheus JSON in chunks, tables in table chunks.
import { createHash } from "node:crypto";
import type { DataTable } from "../domain/data-table.js";
import type { ExtractorServiceDefinition, ExtractRequest } from "../generated/kepler/model/v1/extractor_service.js";
import type { IsolateRequest, IsolatorServiceDefinition } from "../generated/kepler/model/v1/isolator_service.js";
import type { RegistryServiceDefinition } from "../generated/kepler/model/v1/registry_service.js";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import type { TrainerServiceDefinition, TrainRequest } from "../generated/kepler/model/v1/trainer_service.js";
import { ExtractorKind, TableLevel } from "../generated/kepler/model/v1/types.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { CHUNK_BYTES } from "../kit/transport/message-limits.js";
import { collectChunks, tableToChunks } from "../kit/transport/table-codec.js";
import { batchFiles } from "./domain/pipeline-files.js";
import type { PipelinePeers } from "./domain/pipeline-peers.js";
import { callPeer, fromPeerError, isPeerNotFound, peerPreconditionSubject } from "../kit/calls/peer-errors.js";
import { isolatorKindOf, isolatorNameOf, trainerResultOf, windowMessage } from "./peer-messages.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import { machineSpecToProto } from "../kit/transport/machine-spec-codec.js";
import { outputTypeToProto } from "../kit/transport/output-type-codec.js";

// The request field the extractor names when it no longer holds a response sent by its digest.
const RESPONSE_DIGEST_FIELD = "requests[0].options.response_sha256";

// A response's SHA-256, computed once per response (a run names the same bytes in every extractor call);
// "" for a response too large for the extractor to keep (RESPONSE_CACHE_DEFAULTS.maxSamples is about this
// much JSON), which then goes with every call as before.
const NAMED_RESPONSE_MAX_BYTES = 256 * 1024 * 1024;
const digests = new WeakMap<Uint8Array, string>();
function digestOf(response: Uint8Array): string {
  if (response.byteLength > NAMED_RESPONSE_MAX_BYTES) return "";
  let digest = digests.get(response);
  if (digest === undefined) {
    digest = createHash("sha256").update(response).digest("hex");
    digests.set(response, digest);
  }
  return digest;
}

/** The four peers the pipeline calls. */
export interface PipelinePeerClients {
  readonly registry: PeerClient<typeof RegistryServiceDefinition>;
  readonly extractor: PeerClient<typeof ExtractorServiceDefinition>;
  readonly isolator: PeerClient<typeof IsolatorServiceDefinition>;
  readonly trainer: PeerClient<typeof TrainerServiceDefinition>;
}

/** Bytes as `response_chunk`-sized pieces. */
const bufferChunks = (bytes: Uint8Array): Generator<Buffer> =>
  byteChunks(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

async function* chunksOf(responses: AsyncIterable<{ content?: { $case: string; value: unknown } }>): AsyncGenerator<TableChunk> {
  for await (const response of responses) {
    if (response.content?.$case === "chunk") yield response.content.value as TableChunk;
  }
}

/** The peers as the pipeline domain sees them. */
/** Table bytes per PutPipelineMetadata call: half the registry's default message limit. */
const FILE_BATCH_BYTES = 8 * CHUNK_BYTES;

export function createGrpcPeers(clients: PipelinePeerClients): PipelinePeers {
  const { registry, extractor, isolator, trainer } = clients;
  return {
    async queryPrometheus(window, signal) {
      return callPeer("extractor", async () => {
        const parts: Buffer[] = [];
        for await (const response of extractor.client.queryPrometheus({ window: windowMessage(window) }, { signal })) {
          if (response.content?.$case === "responseChunk") parts.push(response.content.value);
        }
        return Buffer.concat(parts);
      });
    },

    async describeData(response, options, signal) {
      const listed = await callPeer("extractor", () =>
        extractor.client.listValidFeatureGroups(
          (async function* () {
            yield {
              content: {
                $case: "options" as const,
                value: {
                  useVmMetrics: options.useVmMetrics,
                  thirdPartyMetricNames: [...options.thirdPartyMetricNames],
                  responseSha256: digestOf(response),
                },
              },
            };
            for (const value of bufferChunks(response)) yield { content: { $case: "responseChunk" as const, value } };
          })(),
          { signal },
        ),
      );
      return {
        validFeatureGroups: listed.validFeatureGroups,
        extraFeatureGroups: listed.validHistoricalFeatureGroups,
        energySources: listed.energySources,
      };
    },

    async extract(response, spec, signal) {
      // The response goes once (with describeData) and is named by its digest after that; an extractor
      // that no longer holds it gets the chunks again.
      async function* requests(withChunks: boolean): AsyncGenerator<ExtractRequest> {
        yield {
          content: {
            $case: "options",
            value: {
              energySource: spec.energySource,
              featureGroup: spec.featureGroup,
              level: spec.level === "node" ? TableLevel.TABLE_LEVEL_NODE : TableLevel.TABLE_LEVEL_CONTAINER,
              extractor: spec.extractor === "smooth" ? ExtractorKind.EXTRACTOR_KIND_SMOOTH : ExtractorKind.EXTRACTOR_KIND_DEFAULT,
              nodeType: spec.nodeType,
              useVmMetrics: spec.useVmMetrics,
              thirdPartyMetricNames: [...spec.thirdPartyMetricNames],
              responseSha256: digestOf(response),
            },
          },
        };
        if (withChunks) for (const value of bufferChunks(response)) yield { content: { $case: "responseChunk", value } };
      }
      const extractWith = (withChunks: boolean) =>
        collectChunks(chunksOf(extractor.client.extract(requests(withChunks), { signal })), "extractor");
      return callPeer("extractor", async () => {
        if (digestOf(response) === "") return extractWith(true);
        try {
          return await extractWith(false);
        } catch (error) {
          // The extractor no longer holds the response named by its digest: send the chunks after all.
          if (peerPreconditionSubject(error) !== RESPONSE_DIGEST_FIELD) throw error;
          return extractWith(true);
        }
      });
    },

    async buildIdleProfiles(idleResponse, options, signal) {
      const built = await callPeer("isolator", () =>
        isolator.client.buildIdleProfile(
          (async function* () {
            yield {
              content: {
                $case: "options" as const,
                value: {
                  energySources: [...options.energySources],
                  nodeType: options.nodeType,
                  useVmMetrics: options.useVmMetrics,
                },
              },
            };
            for (const value of bufferChunks(idleResponse)) yield { content: { $case: "responseChunk" as const, value } };
          })(),
          { signal },
        ),
      );
      return { profiles: built.idleProfiles, backgroundContainerNames: built.backgroundContainerNames };
    },

    async isolate(table, spec, signal) {
      async function* requests(): AsyncGenerator<IsolateRequest> {
        yield {
          content: {
            $case: "options",
            value: {
              isolator: isolatorKindOf(spec.isolator),
              energySource: spec.energySource,
              targetHints: [...spec.targetHints],
              backgroundHints: [...spec.backgroundHints],
              absPipelineName: spec.absPipelineName,
              nodeType: spec.nodeType,
              idleProfiles: [...(spec.idleProfiles?.profiles ?? [])],
              backgroundContainerNames: [...(spec.idleProfiles?.backgroundContainerNames ?? [])],
              // The documented rule: profile isolator when a profile exists for the node type, else min.
              fallBackToMin: true,
            },
          },
        };
        for (const chunk of tableToChunks(table)) yield { content: { $case: "chunk", value: chunk } };
      }
      return callPeer("isolator", async () => {
        const chunks: TableChunk[] = [];
        let summary: { isolator: number; notices: string[] } | undefined;
        for await (const response of isolator.client.isolate(requests(), { signal })) {
          if (response.content?.$case === "chunk") chunks.push(response.content.value);
          else if (response.content?.$case === "summary") summary = response.content.value;
        }
        const isolated: DataTable = await collectChunks(chunks, "isolator");
        return {
          table: isolated,
          isolator: summary === undefined ? spec.isolator : isolatorNameOf(summary.isolator, spec.isolator),
          notices: summary?.notices ?? [],
        };
      });
    },

    async train(table, spec, onResult, signal) {
      async function* requests(): AsyncGenerator<TrainRequest> {
        yield {
          content: {
            $case: "options",
            value: {
              featureGroup: spec.featureGroup,
              energySource: spec.energySource,
              outputType: outputTypeToProto(spec.outputType),
              trainerNames: [...spec.trainerNames],
              nodeType: spec.nodeType,
              seed: spec.seed,
              testTimestampsSeconds: [],
              pipelineName: spec.pipelineName,
              machineSpec: spec.machineSpec === undefined ? undefined : machineSpecToProto(spec.machineSpec),
              continueFromCheckpoint: spec.continueFromCheckpoint,
              skipPublish: false,
              featureNames: [...spec.featureNames],
            },
          },
        };
        for (const chunk of tableToChunks(table)) yield { content: { $case: "chunk", value: chunk } };
      }
      await callPeer("trainer", async () => {
        for await (const response of trainer.client.train(requests(), { signal })) {
          if (response.content?.$case === "result") onResult(trainerResultOf(response.content.value, spec.energySource));
        }
      });
    },

    async indexMachine(pipelineName, machineId, spec) {
      return callPeer("registry", () =>
        registry.client.indexMachine({ pipelineName, machineId, spec: machineSpecToProto(spec) }),
      );
    },

    async readPipelineMetadata(pipelineName) {
      const { pipelines } = await callPeer("registry", () =>
        registry.client.listPipelineMetadata({ pipelineNames: [pipelineName] }),
      );
      const text = pipelines.find((p) => p.pipelineName === pipelineName)?.metadataJson ?? "";
      return text === "" ? undefined : text;
    },

    async readStoredProfiles(pipelineName) {
      try {
        const { files } = await registry.client.getPipelineProfiles({ pipelineName });
        return files.map((file) => ({ path: file.path, text: Buffer.from(file.data).toString("utf8") }));
      } catch (error) {
        if (isPeerNotFound(error)) return [];
        throw fromPeerError("registry", error);
      }
    },

    async writePipelineMetadata(pipelineName, metadataJson, files) {
      // Tables can outgrow one message: send them in batches, each with the same metadata.json (the
      // registry rewrites it identically), the last batch possibly empty of files. A table whose CSV alone
      // is over a batch is not kept (it can be extracted again from the recording): the models and
      // metadata.json must never fail on the copy of an input table.
      const fitting = files.filter((file) => Buffer.byteLength(file.text, "utf8") <= FILE_BATCH_BYTES);
      for (const batch of batchFiles(fitting, FILE_BATCH_BYTES)) {
        const messages = batch.map((file) => ({ path: file.path, data: Buffer.from(file.text, "utf8") }));
        await callPeer("registry", () => registry.client.putPipelineMetadata({ pipelineName, metadataJson, files: messages }));
      }
    },
  };
}
