// Prometheus metric and label names the extractor reads (reference util/prom_types.py, spec §1.3).
import { ACCELERATOR_FEATURES, SYSTEM_FEATURES } from "../../domain/feature-groups.js";

/** Labels that identify a container, joined with "/" in this order (reference container_id_cols). */
export const CONTAINER_KEY_LABELS = ["container_id", "pod_name", "container_name", "container_namespace"] as const;
/** Labels that identify a process in VM mode (reference process_id_cols). */
export const PROCESS_KEY_LABELS = ["container_id", "pid"] as const;
/** The `job` label value of VM series (reference VM_JOB_NAME default). */
export const VM_JOB_NAME = "vm";
/** The energy source label of node energy series. */
export const SOURCE_LABEL = "source";
/** The node-type metric the reference reads (Kepler 0.7 exports `kepler_node_info` instead; spec Appendix A.5). */
export const NODE_INFO_METRIC = "kepler_node_node_info";
/** The per-package usage ratio metric; when present the reference splits power per package (unsupported here). */
export const USAGE_RATIO_METRIC = "kepler_container_cpu_usage_per_package_ratio";
/** The prefix of the metrics a live query discovers. */
export const KEPLER_METRIC_PREFIX = "kepler_";

/** The reference's feature_to_query: the metric a feature is read from. */
export function featureMetricName(
  feature: string,
  options: { useVmMetrics: boolean; thirdPartyMetrics: readonly string[] },
): string {
  if ((SYSTEM_FEATURES as readonly string[]).includes(feature)) return `kepler_node_${feature}`;
  if ((ACCELERATOR_FEATURES as readonly string[]).includes(feature)) return `kepler_node_${feature}`;
  if (options.thirdPartyMetrics.includes(feature)) return feature;
  return options.useVmMetrics ? `kepler_process_${feature}_total` : `kepler_container_${feature}_total`;
}

/** The node (or VM) energy counter of a power component, e.g. `kepler_node_package_joules_total`. */
export function energyMetricName(component: string, useVmMetrics: boolean): string {
  return useVmMetrics ? `kepler_vm_${component}_joules_total` : `kepler_node_${component}_joules_total`;
}

/** True for a system feature (read as a per-timestamp mean, not a rate). */
export function isSystemFeature(feature: string): boolean {
  return (SYSTEM_FEATURES as readonly string[]).includes(feature);
}
