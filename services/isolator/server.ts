// Thin gRPC glue for IsolatorService: decode the request stream, call the domain, stream the result.
import { InvalidInputError } from "../domain/errors.js";
import type { ExtractorServiceDefinition } from "../generated/kepler/model/v1/extractor_service.js";
import type {
  BuildIdleProfileOptions,
  BuildIdleProfileRequest,
  IsolateRequest,
  IsolateResponse,
  IsolatorServiceImplementation,
} from "../generated/kepler/model/v1/isolator_service.js";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import type { ProgressEvent } from "../generated/kepler/model/v1/types.js";
import type { UploadBudget, UploadReservation } from "../kit/calls/upload-budget.js";
import type { PeerClient } from "../kit/transport/grpc-client.js";
import { collectChunks, tableToChunks } from "../kit/transport/table-codec.js";
import { assertEnergySource } from "../domain/energy-sources.js";
import type { BackgroundModelSource } from "./domain/background-models.js";
import { profilesToJson } from "./domain/idle-profile.js";
import { type IsolateOptions, type IsolationResult, isolate } from "./domain/isolate.js";
import type { DataTable } from "../domain/data-table.js";
import { profileIdleResponse } from "./idle-profiler.js";
import { decodeIsolateOptions, encodeIdleProfile, encodeIsolateSummary } from "./isolate-messages.js";

/** What the isolator service calls: the extractor (idle profiles) and the registry's AbsPower models (trainer isolator). */
export interface IsolatorServiceDeps {
  readonly extractor: PeerClient<typeof ExtractorServiceDefinition>;
  readonly backgroundModels: BackgroundModelSource;
  /** Runs the none, min and profile isolators (a worker pool); on the main thread when unset. */
  readonly isolateOffThread?: (table: DataTable, options: IsolateOptions) => Promise<IsolationResult>;
  /** The process's upload budget: an idle recording holds its bytes there while it is profiled. */
  readonly uploadBudget: UploadBudget;
}

async function* isolateChunks(rest: AsyncIterator<IsolateRequest>): AsyncGenerator<TableChunk> {
  for (let index = 1; ; index++) {
    const next = await rest.next();
    if (next.done === true) return;
    if (next.value.content?.$case !== "chunk") {
      throw new InvalidInputError(
        `requests[${index}]`,
        "only the first message carries options; the others must be table chunks",
      );
    }
    yield next.value.content.value;
  }
}

/** The IsolatorService implementation. */
export function createIsolatorService(deps: IsolatorServiceDeps): IsolatorServiceImplementation {
  return {
    async *isolate(requests: AsyncIterable<IsolateRequest>): AsyncGenerator<IsolateResponse> {
      const iterator = requests[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done === true || first.value.content?.$case !== "options") {
        throw new InvalidInputError("requests[0].options", "the first message must carry the isolate options");
      }
      const options = decodeIsolateOptions(first.value.content.value, "requests[0].options");
      const table = await collectChunks(isolateChunks(iterator), "requests.chunk");
      // Progress of the trainer isolator (one event per model) is sent before the table.
      const progress: ProgressEvent[] = [];
      // The trainer isolator reads models from the registry and reports progress: it stays here.
      const result =
        options.isolator !== "trainer" && deps.isolateOffThread !== undefined
          ? await deps.isolateOffThread(table, options)
          : await isolate(table, options, {
              backgroundModels: deps.backgroundModels,
              onProgress: (event) => progress.push(event),
            });
      for (const event of progress) yield { content: { $case: "progress", value: event } };
      for (const chunk of tableToChunks(result.table)) yield { content: { $case: "chunk", value: chunk } };
      yield { content: { $case: "summary", value: encodeIsolateSummary(result.summary) } };
    },

    async buildIdleProfile(requests: AsyncIterable<BuildIdleProfileRequest>) {
      const iterator = requests[Symbol.asyncIterator]();
      const first = await iterator.next();
      if (first.done === true || first.value.content?.$case !== "options") {
        throw new InvalidInputError("requests[0].options", "the first message must carry the profile options");
      }
      const options = first.value.content.value;
      // The recording is held whole: its running size is reserved in the process's upload budget.
      const reservation = deps.uploadBudget.reserve("this idle recording");
      try {
        return await profileRecording(options, iterator, reservation);
      } finally {
        reservation.release();
      }
    },
  };

  async function profileRecording(
    options: BuildIdleProfileOptions,
    iterator: AsyncIterator<BuildIdleProfileRequest>,
    reservation: UploadReservation,
  ) {
    const parts: Uint8Array[] = [];
    let receivedBytes = 0;
    for (let index = 1; ; index++) {
      const next = await iterator.next();
      if (next.done === true) break;
      if (next.value.content?.$case !== "responseChunk") {
        throw new InvalidInputError(
          `requests[${index}]`,
          "only the first message carries options; the others must be response chunks",
        );
      }
      reservation.grow((receivedBytes += next.value.content.value.byteLength));
      parts.push(next.value.content.value);
    }
    if (parts.length === 0)
      throw new InvalidInputError("response_chunk", "no idle data: send the idle Prometheus response after the options");
    const result = await profileIdleResponse(deps.extractor, {
      response: Buffer.concat(parts),
      energySources: options.energySources.map((name, index) =>
        assertEnergySource(name, `requests[0].options.energy_sources[${index}]`),
      ),
      nodeType: options.nodeType ?? 0,
      useVmMetrics: options.useVmMetrics,
    });
    return {
      idleProfiles: result.profiles.map(encodeIdleProfile),
      backgroundContainerNames: [...result.backgroundContainerNames],
      profileJson: JSON.stringify(profilesToJson(result.profiles)),
    };
  }
}
