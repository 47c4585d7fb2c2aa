// The background containers of idle data (reference ProfileBackgroundIsolator.__init__, spec §4.4).
import type { PrometheusResponse } from "../../domain/prometheus-response.js";

/** The metric whose container names the reference reads as the idle node's background. */
const IDLE_CONTAINER_METRIC = "kepler_container_bpf_cpu_time_ms_total";

/** Background container names of idle data, and where they were read. */
export interface IdleContainers {
  readonly names: readonly string[];
  readonly notices: readonly string[];
}

/**
 * The distinct `container_name` labels of kepler_container_bpf_cpu_time_ms_total, sorted: every container
 * seen while the node was idle. Data without that metric (Kepler before 2024 exported bpf_cpu_time_us)
 * falls back to the container names of every kepler_container_* metric, with a notice; the reference
 * fails there.
 */
export function idleContainerNames(response: PrometheusResponse): IdleContainers {
  const metric = response.metrics.get(IDLE_CONTAINER_METRIC);
  const metrics = metric
    ? [metric]
    : [...response.metrics.values()].filter((candidate) => candidate.name.startsWith("kepler_container_"));
  const names = new Set<string>();
  for (const { series } of metrics) {
    for (const { labels } of series) {
      const name = labels.container_name;
      if (name !== undefined && name !== "") names.add(name);
    }
  }
  const notices = metric
    ? []
    : [`${IDLE_CONTAINER_METRIC} is absent: background containers were read from every kepler_container_* metric`];
  return { names: [...names].sort(), notices };
}
