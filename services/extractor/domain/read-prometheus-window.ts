// The live path: a window of a running Prometheus read into a parsed response (reference
// `kepler-model query` followed by prom_responses_to_results).
import { type PrometheusResponse, PrometheusResponseBuilder } from "../../domain/prometheus-response.js";
import { type PrometheusClient, createPrometheusClient } from "../../prometheus/prometheus-client.js";
import { type QueryWindow, type SavedResponse, queryWindow } from "../../prometheus/query-window.js";

/** A window plus where to read it. */
export interface PrometheusSource extends QueryWindow {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  /** Largest answer of one request (the client's default when unset). */
  readonly maxResponseBytes?: number;
}

/** The saved-response document of a window, exactly as the reference would save it. */
export async function readSavedResponse(
  source: PrometheusSource,
  client: PrometheusClient = clientOf(source),
): Promise<SavedResponse> {
  return queryWindow(client, source);
}

/**
 * A window of a live Prometheus, parsed and validated like an inline response; each metric is packed
 * into float64 arrays as soon as its query returns.
 */
export async function readPrometheusWindow(source: PrometheusSource): Promise<PrometheusResponse> {
  const builder = new PrometheusResponseBuilder("prometheus");
  await queryWindow(clientOf(source), source, (name, series) => builder.addMetricJson(name, series));
  return builder.build();
}

function clientOf(source: PrometheusSource): PrometheusClient {
  const { baseUrl, timeoutMs, maxResponseBytes } = source;
  return createPrometheusClient({ baseUrl, timeoutMs, maxResponseBytes });
}
