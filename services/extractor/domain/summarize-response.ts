// What a response holds (reference CLI `validate` and get_valid_feature_group_from_queries): per-metric
// counts, the energy sources with node energy series, and the feature groups the data supports.
import { componentsOf, type EnergySource, energySourceOfLabel } from "../../domain/energy-sources.js";
import type { PrometheusResponse } from "../../domain/prometheus-response.js";
import { countGreaterThan } from "../../../wasm-core/src/index.js";
import { SOURCE_LABEL, energyMetricName } from "./metric-names.js";
import type { SampleCounts } from "./sample-counts.js";
import { type ValidFeatureGroups, validFeatureGroupsOf } from "./valid-feature-groups.js";

export interface MetricCounts extends SampleCounts {
  readonly metricName: string;
}

export interface ResponseSummary {
  readonly validFeatureGroups: ValidFeatureGroups;
  /**
   * Canonical sources of the `kepler_node_*_joules_total` series (e.g. `rapl` read as `rapl-sysfs`); in VM
   * mode, the sources whose every component has a `kepler_vm_<component>_joules_total` series.
   */
  readonly energySources: readonly EnergySource[];
  /** Ordered by metric name. */
  readonly metrics: readonly MetricCounts[];
}

/** Summarises a parsed response. */
export function summarizeResponse(
  response: PrometheusResponse,
  thirdPartyMetrics: readonly string[] = [],
  useVmMetrics = false,
): ResponseSummary {
  const metrics = [...response.metrics.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((metric) => ({
      metricName: metric.name,
      seriesCount: metric.series.length,
      sampleCount: metric.values.length,
      positiveSampleCount: countGreaterThan(metric.values, 0),
    }));
  return {
    validFeatureGroups: validFeatureGroupsOf(response, thirdPartyMetrics, useVmMetrics),
    energySources: useVmMetrics ? vmEnergySources(response) : nodeEnergySources(response),
    metrics,
  };
}

function nodeEnergySources(response: PrometheusResponse): EnergySource[] {
  const sources = new Set<EnergySource>();
  for (const [name, metric] of response.metrics) {
    if (!/^kepler_node_.+_joules_total$/.test(name)) continue;
    for (const series of metric.series) {
      const source = energySourceOfLabel(series.labels[SOURCE_LABEL] ?? "");
      if (source !== undefined) sources.add(source);
    }
  }
  return [...sources].sort();
}

// VM energy (reference get_power_data in VM mode) is not filtered by a source label: a source is there
// when all its components are. RAPL is named once, as rapl-sysfs (rapl-msr has the same components).
const VM_ENERGY_SOURCES: readonly EnergySource[] = ["acpi", "rapl-sysfs"];

function vmEnergySources(response: PrometheusResponse): EnergySource[] {
  return VM_ENERGY_SOURCES.filter((source) =>
    componentsOf(source).every((component) => (response.metrics.get(energyMetricName(component, true))?.series.length ?? 0) > 0),
  );
}
