// A parsed Prometheus response as plain arrays, so two parses (whole text, streamed, JSON.parse) compare with toEqual.
import type { PrometheusResponse } from "../../services/domain/prometheus-response.js";

export function flatPrometheusResponse(response: PrometheusResponse) {
  return [...response.metrics.values()].map((metric) => ({
    name: metric.name,
    series: metric.series,
    timestamps: Array.from(metric.timestamps),
    values: Array.from(metric.values),
  }));
}
