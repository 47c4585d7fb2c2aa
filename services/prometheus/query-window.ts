// Reads a window of Kepler metrics from a live Prometheus into the saved-response shape the reference's
// `kepler-model query` writes (spec §1.3): every metric whose name starts with the prefix (default
// `kepler_`) plus the third-party metrics, each range-queried on its own.
import type { RangeSeries } from "./prometheus-client.js";
import type { PrometheusClient } from "./prometheus-client.js";

/** A window to read. */
export interface QueryWindow {
  readonly startSeconds: number;
  readonly endSeconds: number;
  /** Query resolution; the reference's default is 3 s. */
  readonly stepSeconds: number;
  /** Metric-name prefix to discover; the reference's `kepler_`. */
  readonly metricPrefix: string;
  readonly thirdPartyMetrics: readonly string[];
}

/** The reference's default query step (PROM_QUERY_STEP). */
export const DEFAULT_STEP_SECONDS = 3;

/** Saved-response JSON shape: metric name -> series. */
export type SavedResponse = Record<string, RangeSeries[]>;

/**
 * Discovers the metrics with data in the window and range-queries each. Metrics are queried one after
 * another so a large window does not put many heavy queries on the server at once. With `onMetric`,
 * each metric's series go to the callback as soon as they arrive instead of into the returned document
 * (so a caller converting them to packed arrays never holds every metric's JSON at once).
 */
export async function queryWindow(
  client: PrometheusClient,
  window: QueryWindow,
  onMetric?: (name: string, series: RangeSeries[]) => void,
): Promise<SavedResponse> {
  const names = await client.listMetricNames({ startSeconds: window.startSeconds, endSeconds: window.endSeconds });
  const wanted = [
    ...new Set([...names.filter((name) => name.startsWith(window.metricPrefix)), ...window.thirdPartyMetrics]),
  ].sort();
  const response: SavedResponse = {};
  for (const name of wanted) {
    const series = await client.queryRange(name, window.startSeconds, window.endSeconds, window.stepSeconds);
    if (onMetric === undefined) response[name] = series;
    else onMetric(name, series);
  }
  return response;
}
