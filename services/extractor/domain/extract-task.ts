// The extractor's CPU-heavy step as one plain-data task (parse the response text if needed, build the
// table), so it runs the same on the main thread or on a worker thread.
import { type PrometheusResponse, parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { type ExtractOptions, type ExtractResult, extract } from "./extract.js";
import type { ValidFeatureGroups } from "./valid-feature-groups.js";

/**
 * The response as JSON bytes (parsed here, errors naming `field`) or already parsed (live Prometheus,
 * cached), then possibly only the metrics the extraction reads plus the whole response's valid feature
 * groups (extractInput: less to copy to a worker thread).
 */
export type ResponseInput =
  { bytes: Uint8Array; field: string } | { parsed: PrometheusResponse; validFeatureGroups?: ValidFeatureGroups };

export type ExtractTask = { kind: "extract"; input: ResponseInput; options: ExtractOptions };

export type ExtractTaskResult = { kind: "extract"; result: ExtractResult };

/** Runs one task; domain errors (InvalidInputError naming the field) propagate. */
export function runExtractTask(task: ExtractTask): ExtractTaskResult {
  const input = task.input;
  if ("bytes" in input)
    return { kind: "extract", result: extract(parsePrometheusResponse(input.bytes, input.field), task.options) };
  return { kind: "extract", result: extract(input.parsed, task.options, input.validFeatureGroups) };
}
