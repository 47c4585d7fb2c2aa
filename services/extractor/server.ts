import { InvalidInputError } from "../domain/errors.js";
import type {
  ExtractorServiceImplementation,
  ExtractSummary,
  ListValidFeatureGroupsResponse,
  MetricSummary,
} from "../generated/kepler/model/v1/extractor_service.js";
import type { TableChunk } from "../generated/kepler/model/v1/table.js";
import type { PrometheusWindow } from "../generated/kepler/model/v1/types.js";
import { byteChunks } from "../kit/transport/byte-chunks.js";
import { tableToChunks } from "../kit/transport/table-codec.js";
import { type ExtractOptions, type ExtractResult, extractInput } from "./domain/extract.js";
import { type ExtractTask, type ExtractTaskResult, type ResponseInput, runExtractTask } from "./domain/extract-task.js";
import { readPrometheusWindow, readSavedResponse } from "./domain/read-prometheus-window.js";
import { type MetricCounts, summarizeResponse } from "./domain/summarize-response.js";
import { decodeExtractOptions, decodeWindow, readOptionsAndResponse } from "./request-options.js";
import { ResponseCache } from "./response-cache.js";
import { parsePrometheusResponse } from "../domain/prometheus-response.js";
import type { PrometheusAllowlist } from "../prometheus/url-allowlist.js";

export interface ExtractorServiceDeps {
  /** Timeout of each Prometheus HTTP request. */
  readonly prometheusTimeoutMs: number;
  /** Largest answer of one Prometheus HTTP request; the client's default when unset. */
  readonly prometheusMaxResponseBytes?: number;
  /** The Prometheus URLs a request may name. */
  readonly prometheusAllowlist: PrometheusAllowlist;
  /** Runs parsing, extraction and summaries (a worker pool); on the main thread when unset. */
  readonly runTask?: (task: ExtractTask) => Promise<ExtractTaskResult>;
  /** Responses kept by digest (ExtractOptions.response_sha256); a cache of the defaults when unset. */
  readonly responseCache?: ResponseCache;
}

/** The extractor RPCs: decode the request, call the domain, stream the table then a summary. */
export function createExtractorService(deps: ExtractorServiceDeps): ExtractorServiceImplementation {
  const runTask = deps.runTask ?? (async (task: ExtractTask) => runExtractTask(task));
  const cache = deps.responseCache ?? new ResponseCache();
  // Every window a request names is read within the same configured limits.
  const windowOf = (window: PrometheusWindow | undefined, field: string) =>
    decodeWindow(window, field, deps.prometheusTimeoutMs, deps.prometheusAllowlist, deps.prometheusMaxResponseBytes);
  const extractOn = async (input: ResponseInput, options: ExtractOptions): Promise<ExtractResult> => {
    // A parsed response goes to the task thread as only what this extraction reads.
    let task: ExtractTask = { kind: "extract", input, options };
    if ("parsed" in input) {
      const { response, validFeatureGroups } = extractInput(input.parsed, options);
      task = { kind: "extract", input: { parsed: response, validFeatureGroups }, options };
    }
    const answer = await runTask(task);
    if (answer.kind !== "extract") throw new Error(`extract task answered ${answer.kind}`);
    return answer.result;
  };
  return {
    async *extract(requests) {
      const { options, response } = await readOptionsAndResponse(requests, cache, (o) => o.responseSha256);
      const extractOptions = decodeExtractOptions(options, "requests[0].options");
      if (response === undefined)
        throw new InvalidInputError("response_chunk", "no response chunks: send the Prometheus response JSON after the options");
      yield* resultMessages(await extractOn({ parsed: response }, extractOptions));
    },

    async *extractFromPrometheus(request) {
      const source = windowOf(request.window, "window");
      const options = decodeExtractOptions(request.options, "options", source.thirdPartyMetrics);
      const response = await readPrometheusWindow({ ...source, thirdPartyMetrics: options.thirdPartyMetrics ?? [] });
      yield* resultMessages(await extractOn({ parsed: response }, options));
    },

    async listValidFeatureGroups(requests): Promise<ListValidFeatureGroupsResponse> {
      const { options, response: inline } = await readOptionsAndResponse(requests, cache, (o) =>
        o.window === undefined ? o.responseSha256 : "",
      );
      let data = inline;
      if (options.window !== undefined) {
        if (options.responseSha256 !== "")
          throw new InvalidInputError("requests[0].options.response_sha256", "must be empty when the options name a live window");
        if (inline !== undefined)
          throw new InvalidInputError("response_chunk", "options name a live window: send no response chunks");
        const source = windowOf(options.window, "requests[0].options.window");
        data = await readPrometheusWindow({
          ...source,
          thirdPartyMetrics: [...source.thirdPartyMetrics, ...options.thirdPartyMetricNames],
        });
      }
      if (data === undefined)
        throw new InvalidInputError("response_chunk", "no data: send response chunks or name a window in the options");
      const thirdParty = [...options.thirdPartyMetricNames, ...(options.window?.thirdPartyMetricNames ?? [])];
      // Counts per metric, cheaper than copying the parsed response to a worker thread: done here.
      const summary = summarizeResponse(data, thirdParty, options.useVmMetrics);
      return {
        validFeatureGroups: summary.validFeatureGroups.reference,
        validHistoricalFeatureGroups: summary.validFeatureGroups.extra,
        energySources: [...summary.energySources],
        metrics: summary.metrics.map(metricSummary),
      };
    },

    async *queryPrometheus(request) {
      const source = windowOf(request.window, "window");
      const saved = await readSavedResponse(source);
      const bytes = Buffer.from(JSON.stringify(saved), "utf8");
      for (const chunk of byteChunks(bytes)) yield { content: { $case: "responseChunk", value: chunk } };
      const metrics = summarizeResponse(parsePrometheusResponse(saved, "prometheus")).metrics.map(metricSummary);
      yield { content: { $case: "summary", value: { metrics, responseSizeBytes: bytes.length } } };
    },
  };
}

function* resultMessages(
  result: ExtractResult,
): Generator<{ content: { $case: "chunk"; value: TableChunk } | { $case: "summary"; value: ExtractSummary } }> {
  for (const chunk of tableToChunks(result.table)) yield { content: { $case: "chunk", value: chunk } };
  yield {
    content: {
      $case: "summary",
      value: {
        powerColumnNames: [...result.powerColumns],
        featureNames: [...result.features],
        correlationPowerColumnName: result.correlationPowerColumn,
        correlations: result.correlations.map(({ feature, correlation }) => ({ featureName: feature, correlation })),
        validFeatureGroups: [...result.validFeatureGroups],
        validHistoricalFeatureGroups: [...result.validHistoricalFeatureGroups],
        rowCount: result.table.rowCount,
        containerCount: result.containerCount,
        notices: [...result.notices],
      },
    },
  };
}

function metricSummary(counts: MetricCounts): MetricSummary {
  return {
    metricName: counts.metricName,
    seriesCount: counts.seriesCount,
    sampleCount: counts.sampleCount,
    positiveSampleCount: counts.positiveSampleCount,
  };
}
