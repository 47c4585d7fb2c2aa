// The extractor's CPU-heavy step as one plain-data task (parse the response text if needed, build the
// table), so it runs the same on the main thread or on a worker thread.
import { type PrometheusResponse, parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { type ExtractOptions, type ExtractResult, extract } from "./extract.js";

/** The response as JSON bytes (parsed here, errors naming `field`) or already parsed (live Prometheus). */
export type ResponseInput = { bytes: Uint8Array; field: string } | { parsed: PrometheusResponse };

export type ExtractTask = { kind: "extract"; input: ResponseInput; options: ExtractOptions };

export type ExtractTaskResult = { kind: "extract"; result: ExtractResult };

function responseOf(input: ResponseInput): PrometheusResponse {
  return "parsed" in input ? input.parsed : parsePrometheusResponse(input.bytes, input.field);
}

/** Runs one task; domain errors (InvalidInputError naming the field) propagate. */
export function runExtractTask(task: ExtractTask): ExtractTaskResult {
  return { kind: "extract", result: extract(responseOf(task.input), task.options) };
}
