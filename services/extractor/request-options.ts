// Decoding of the extractor's request messages into domain options; every error names the field.
import { assertEnergySource } from "../domain/energy-sources.js";
import { createHash, type Hash } from "node:crypto";
import { FailedPreconditionError, InvalidInputError } from "../domain/errors.js";
import { assertFeatureGroup } from "../domain/feature-groups.js";
import { type PrometheusResponse, PrometheusResponseStream } from "../domain/prometheus-response.js";
import type { ExtractOptions as ExtractOptionsMessage } from "../generated/kepler/model/v1/extractor_service.js";
import { ExtractorKind, type PrometheusWindow, TableLevel } from "../generated/kepler/model/v1/types.js";
import { DEFAULT_STEP_SECONDS } from "../prometheus/query-window.js";
import { type PrometheusAllowlist, assertAllowedPrometheusUrl } from "../prometheus/url-allowlist.js";
import { assertWindowBounds } from "../prometheus/window-bounds.js";
import type { ExtractOptions } from "./domain/extract.js";
import { KEPLER_METRIC_PREFIX } from "./domain/metric-names.js";
import type { PrometheusSource } from "./domain/read-prometheus-window.js";
import type { ResponseCache } from "./response-cache.js";

/** ExtractOptions message -> domain options. */
export function decodeExtractOptions(
  message: ExtractOptionsMessage | undefined,
  field: string,
  extraThirdParty: readonly string[] = [],
): ExtractOptions {
  if (message === undefined) throw new InvalidInputError(field, "required");
  if (message.energySource === "") throw new InvalidInputError(`${field}.energy_source`, "required");
  if (message.featureGroup === "") throw new InvalidInputError(`${field}.feature_group`, "required");
  let level: ExtractOptions["level"];
  if (message.level === TableLevel.TABLE_LEVEL_NODE) level = "node";
  else if (message.level === TableLevel.TABLE_LEVEL_CONTAINER) level = "container";
  else throw new InvalidInputError(`${field}.level`, "required: TABLE_LEVEL_NODE or TABLE_LEVEL_CONTAINER");
  let extractor: ExtractOptions["extractor"];
  if (message.extractor === ExtractorKind.EXTRACTOR_KIND_SMOOTH) extractor = "smooth";
  else if (
    message.extractor === ExtractorKind.EXTRACTOR_KIND_DEFAULT ||
    message.extractor === ExtractorKind.EXTRACTOR_KIND_UNSPECIFIED
  ) {
    extractor = "default";
  } else throw new InvalidInputError(`${field}.extractor`, `unknown extractor kind ${message.extractor}`);
  return {
    energySource: assertEnergySource(message.energySource, `${field}.energy_source`),
    featureGroup: assertFeatureGroup(message.featureGroup, `${field}.feature_group`),
    level,
    extractor,
    nodeType: message.nodeType,
    useVmMetrics: message.useVmMetrics,
    thirdPartyMetrics: [...new Set([...message.thirdPartyMetricNames, ...extraThirdParty])],
  };
}

/** PrometheusWindow message -> where and what to read (`maxResponseBytes`: the client's default when unset). */
export function decodeWindow(
  window: PrometheusWindow | undefined,
  field: string,
  timeoutMs: number,
  allowlist: PrometheusAllowlist,
  maxResponseBytes?: number,
): PrometheusSource {
  if (window === undefined) throw new InvalidInputError(field, "required");
  if (window.baseUrl === "") throw new InvalidInputError(`${field}.base_url`, "required");
  // Before anything else is done with the window: no connection to an address outside the list.
  assertAllowedPrometheusUrl(window.baseUrl, allowlist, `${field}.base_url`);
  if (!(window.endTimeSeconds >= window.startTimeSeconds) || window.startTimeSeconds <= 0) {
    throw new InvalidInputError(
      field,
      `expected 0 < start_time_seconds <= end_time_seconds, got ${window.startTimeSeconds} .. ${window.endTimeSeconds}`,
    );
  }
  if (window.stepSeconds < 0)
    throw new InvalidInputError(`${field}.step_seconds`, `must not be negative, got ${window.stepSeconds}`);
  const stepSeconds = window.stepSeconds === 0 ? DEFAULT_STEP_SECONDS : window.stepSeconds;
  assertWindowBounds({ startSeconds: window.startTimeSeconds, endSeconds: window.endTimeSeconds, stepSeconds }, field);
  return {
    baseUrl: window.baseUrl,
    timeoutMs,
    maxResponseBytes,
    startSeconds: window.startTimeSeconds,
    endSeconds: window.endTimeSeconds,
    stepSeconds,
    metricPrefix: window.metricPrefix === "" ? KEPLER_METRIC_PREFIX : window.metricPrefix,
    thirdPartyMetrics: window.thirdPartyMetricNames,
  };
}

type StreamMessage<O> = { content?: { $case: "options"; value: O } | { $case: "responseChunk"; value: Uint8Array } | undefined };

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Reads an options-then-chunks request stream: the options from the first message, the response from
 * the rest, parsed while the chunks arrive (the JSON text is never held whole). `response` is undefined
 * when no chunk came. Options naming the response's SHA-256 use and fill `cache`: a kept response is not
 * scanned again (chunks, when sent, are only checked against the digest) and chunks may be left out.
 */
export async function readOptionsAndResponse<O>(
  requests: AsyncIterable<StreamMessage<O>>,
  cache: ResponseCache,
  digestOf: (options: O) => string,
): Promise<{ options: O; response: PrometheusResponse | undefined }> {
  let options: O | undefined;
  const reader = new PrometheusResponseStream("response_chunk");
  let digest = "";
  let kept: PrometheusResponse | undefined;
  let hash: Hash | undefined;
  let receivedBytes = 0;
  let index = 0;
  for await (const message of requests) {
    const content = message.content;
    if (content?.$case === "options") {
      if (index !== 0) throw new InvalidInputError(`requests[${index}].options`, "options must come once, in the first message");
      options = content.value;
      digest = digestOf(options);
      if (digest !== "") {
        if (!SHA256_HEX.test(digest))
          throw new InvalidInputError("requests[0].options.response_sha256", "expected 64 lowercase hex digits");
        kept = cache.get(digest);
        hash = createHash("sha256");
      }
    } else if (content?.$case === "responseChunk") {
      if (index === 0) throw new InvalidInputError("requests[0].options", "the first message must carry the options");
      receivedBytes += content.value.byteLength;
      hash?.update(content.value);
      if (kept === undefined) reader.push(content.value);
    } else {
      throw new InvalidInputError(`requests[${index}]`, "empty message: expected options or a response chunk");
    }
    index++;
  }
  if (options === undefined)
    throw new InvalidInputError("requests[0].options", "no messages: the first message must carry the options");
  if (digest === "") return { options, response: receivedBytes > 0 ? reader.finish() : undefined };
  if (receivedBytes === 0) {
    if (kept === undefined)
      throw new FailedPreconditionError(
        "requests[0].options.response_sha256: the extractor no longer holds this response: send its chunks",
        { subject: "requests[0].options.response_sha256" },
      );
    return { options, response: kept };
  }
  if (hash!.digest("hex") !== digest)
    throw new InvalidInputError("requests[0].options.response_sha256", "does not match the SHA-256 of the response chunks");
  if (kept !== undefined) return { options, response: kept };
  const response = reader.finish();
  cache.put(digest, response);
  return { options, response };
}
