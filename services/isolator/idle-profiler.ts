// BuildIdleProfile's orchestration: the idle node tables come from the extractor service (its AbsPower
// path drops the repeated last sample), the profiles and background containers from the isolator domain.
import { type EnergySource, assertEnergySource } from "../domain/energy-sources.js";
import { FailedPreconditionError } from "../domain/errors.js";
import { parsePrometheusResponse } from "../domain/prometheus-response.js";
import type { ExtractRequest, ExtractorServiceDefinition } from "../generated/kepler/model/v1/extractor_service.js";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import { TableLevel } from "../generated/kepler/model/v1/types.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import { collectChunks } from "../kit/transport/table-codec.js";
import { idleContainerNames } from "./domain/idle-containers.js";
import { type IdleNodeTable, type IdleProfile, buildIdleProfiles } from "./domain/idle-profile.js";
import { callPeer } from "../kit/calls/peer-errors.js";

export interface IdleProfileRequest {
  /** The idle Prometheus response JSON. */
  readonly response: Uint8Array;
  /** Sources to profile; empty means every source of the data. */
  readonly energySources: readonly EnergySource[];
  readonly nodeType: number;
  readonly useVmMetrics: boolean;
}

export interface IdleProfileResult {
  readonly profiles: IdleProfile[];
  readonly backgroundContainerNames: readonly string[];
  readonly notices: readonly string[];
}

/** Builds idle profiles of the response through the extractor. */
export async function profileIdleResponse(
  extractor: PeerClient<typeof ExtractorServiceDefinition>,
  request: IdleProfileRequest,
): Promise<IdleProfileResult> {
  const containers = idleContainerNames(parsePrometheusResponse(request.response, "response_chunk"));
  const listed = await callPeer("extractor", () =>
    extractor.client.listValidFeatureGroups(
      (async function* () {
        yield {
          content: { $case: "options" as const, value: { useVmMetrics: request.useVmMetrics, thirdPartyMetricNames: [] } },
        };
        yield* responseChunks(request.response);
      })(),
    ),
  );
  const featureGroup = listed.validFeatureGroups[0];
  if (featureGroup === undefined) {
    throw new FailedPreconditionError(
      "the idle data supports no feature group: it needs the workload metrics of at least one group",
    );
  }
  const sources =
    request.energySources.length > 0
      ? request.energySources
      : listed.energySources.flatMap((name) => {
          try {
            return [assertEnergySource(name)];
          } catch {
            return [];
          }
        });
  if (sources.length === 0) throw new FailedPreconditionError("the idle data has no node energy series of a known source");
  const tables: IdleNodeTable[] = [];
  for (const energySource of sources) {
    const table = await callPeer("extractor", () =>
      collectChunks(
        tableChunksOf(
          extractor.client.extract(
            (async function* (): AsyncGenerator<ExtractRequest> {
              yield {
                content: {
                  $case: "options",
                  value: {
                    energySource,
                    featureGroup,
                    level: TableLevel.TABLE_LEVEL_NODE,
                    extractor: 0,
                    nodeType: request.nodeType,
                    useVmMetrics: request.useVmMetrics,
                    thirdPartyMetricNames: [],
                    responseSha256: "",
                  },
                },
              };
              yield* responseChunks(request.response);
            })(),
          ),
        ),
        "extractor",
      ),
    );
    tables.push({ energySource, table });
  }
  return { profiles: buildIdleProfiles(tables), backgroundContainerNames: containers.names, notices: containers.notices };
}

/** The response bytes as `response_chunk` messages of at most CHUNK_BYTES. */
export function* responseChunks(bytes: Uint8Array): Generator<{ content: { $case: "responseChunk"; value: Buffer } }> {
  for (const chunk of byteChunks(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)))
    yield { content: { $case: "responseChunk", value: chunk } };
}

async function* tableChunksOf(
  responses: AsyncIterable<{ content?: { $case: string; value: unknown } }>,
): AsyncGenerator<TableChunk> {
  for await (const response of responses) {
    if (response.content?.$case === "chunk") yield response.content.value as TableChunk;
  }
}
