// The extractor's CPU-heavy steps as one plain-data task (parse the response text, build the table, or
// summarize it), so they run the same on the main thread or on a worker thread.
import { type PrometheusResponse, parsePrometheusResponse } from "../../domain/prometheus-response.js";
import { type ExtractOptions, type ExtractResult, extract } from "./extract.js";
import { type ResponseSummary, summarizeResponse } from "./summarize-response.js";

/** The response as JSON bytes (parsed here, errors naming `field`) or already parsed (live Prometheus). */
export type ResponseInput = { bytes: Uint8Array; field: string } | { parsed: PrometheusResponse };

export type ExtractTask =
  | { kind: "extract"; input: ResponseInput; options: ExtractOptions }
  | { kind: "summarize"; input: ResponseInput; thirdParty: string[]; useVmMetrics: boolean };

export type ExtractTaskResult = { kind: "extract"; result: ExtractResult } | { kind: "summarize"; summary: ResponseSummary };

function responseOf(input: ResponseInput): PrometheusResponse {
  return "parsed" in input ? input.parsed : parsePrometheusResponse(input.bytes, input.field);
}

/** Runs one task; domain errors (InvalidInputError naming the field) propagate. */
export function runExtractTask(task: ExtractTask): ExtractTaskResult {
  const response = responseOf(task.input);
  if (task.kind === "extract") return { kind: "extract", result: extract(response, task.options) };
  return { kind: "summarize", summary: summarizeResponse(response, task.thirdParty, task.useVmMetrics) };
}
