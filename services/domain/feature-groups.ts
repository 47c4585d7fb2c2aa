// Kepler's feature vocabulary, exactly as the reference's util/train_types.py defines it (spec §1).
// Every feature list is sorted alphabetically, as the reference's deep_sort does.
import { InvalidInputError } from "./errors.js";

export const SYSTEM_FEATURES = ["node_info", "cpu_scaling_frequency_hertz"] as const;
const COUNTER_FEATURES = ["cache_miss", "cpu_cycles", "cpu_instructions"] as const;
const BPF_FEATURES = ["bpf_cpu_time_ms", "bpf_page_cache_hit"] as const;
const IRQ_FEATURES = ["bpf_block_irq", "bpf_net_rx_irq", "bpf_net_tx_irq"] as const;
export const ACCELERATOR_FEATURES = ["accelerator_intel_qat"] as const;
const WORKLOAD_FEATURES = [...COUNTER_FEATURES, ...BPF_FEATURES, ...IRQ_FEATURES, ...ACCELERATOR_FEATURES] as const;

/** The reference's FeatureGroups dict, in its order (the order model selection scans them). */
const REFERENCE_FEATURE_GROUP_NAMES = [
  "Full",
  "WorkloadOnly",
  "CounterOnly",
  "BPFOnly",
  "BPFIRQ",
  "CounterIRQCombined",
  "Basic",
  "AcceleratorOnly",
  "ThirdParty",
] as const;

/**
 * Groups beyond the reference's dict: IRQOnly (in its enum without a feature list; we give it the IRQ
 * features) and the removed CgroupOnly and KubeletOnly that older recordings and the v0.6 models
 * carry. They train and serve like any group; they are listed apart so the valid groups of a recording
 * stay exactly the reference's answer.
 */
export const EXTRA_FEATURE_GROUP_NAMES = ["IRQOnly", "CgroupOnly", "KubeletOnly"] as const;
export type ExtraFeatureGroupName = (typeof EXTRA_FEATURE_GROUP_NAMES)[number];

/**
 * VM groups for Kepler 0.10+ (services/vm-power): the guest OS's own counters as a VM sees them (node
 * exporter or /proc), without and with the perf counters some hypervisors pass through. Never found in
 * a Kepler recording's valid groups: they come from the guest, not from Kepler.
 */
const GUEST_FEATURE_GROUP_NAMES = ["GuestOSOnly", "GuestOSPerf"] as const;
export type GuestFeatureGroupName = (typeof GUEST_FEATURE_GROUP_NAMES)[number];

/** Guest OS features: CPU modes as fractions of the VM's vCPU time, the rest per second (or a fraction). */
export const GUEST_OS_FEATURES = [
  "guest_context_switches_per_second",
  "guest_cpu_iowait_ratio",
  "guest_cpu_irq_ratio",
  "guest_cpu_steal_ratio",
  "guest_cpu_system_ratio",
  "guest_cpu_user_ratio",
  "guest_disk_bytes_per_second",
  "guest_interrupts_per_second",
  "guest_major_page_faults_per_second",
  "guest_memory_used_ratio",
  "guest_network_bytes_per_second",
  "guest_page_faults_per_second",
] as const;
/** Perf counters a guest may see (node exporter's perf collector, or perf_event in the VM), per second. */
export const GUEST_PERF_FEATURES = ["guest_cpu_cycles_per_second", "guest_cpu_instructions_per_second"] as const;

/** Every group we train and serve: the reference's, then the extra ones, then the VM ones. */
export const FEATURE_GROUP_NAMES = [
  ...REFERENCE_FEATURE_GROUP_NAMES,
  ...EXTRA_FEATURE_GROUP_NAMES,
  ...GUEST_FEATURE_GROUP_NAMES,
] as const;
export type FeatureGroupName = (typeof FEATURE_GROUP_NAMES)[number];
type ReferenceFeatureGroupName = (typeof REFERENCE_FEATURE_GROUP_NAMES)[number];

const sorted = (features: readonly string[]): readonly string[] => [...features].sort();

// Historical vocabulary (spec §1.1 "History"): names the reference removed but recorded data and the
// v0.6 models still use. Recorded data is read verbatim under these names: `bpf_cpu_time_us` is never
// renamed to `bpf_cpu_time_ms` (the unit differs by 1000 and the reference does not read it either),
// so such data supports only the groups its metric names support.

/** cgroup features, part of WORKLOAD/BASIC until reference commit ce5040b (2024-08-02). */
const CGROUP_FEATURES = [
  "cgroupfs_cpu_usage_us",
  "cgroupfs_memory_usage_bytes",
  "cgroupfs_system_cpu_usage_us",
  "cgroupfs_user_cpu_usage_us",
] as const;
/** kubelet features of the KubeletOnly group, removed in reference commit d04d3aa (2024-01-25). */
const KUBELET_FEATURES = ["kubelet_memory_bytes", "kubelet_cpu_usage"] as const;

const FIXED_GROUP_FEATURES: Record<Exclude<FeatureGroupName, "ThirdParty">, readonly string[]> = {
  Full: sorted([...WORKLOAD_FEATURES, ...SYSTEM_FEATURES]),
  WorkloadOnly: sorted(WORKLOAD_FEATURES),
  CounterOnly: sorted(COUNTER_FEATURES),
  BPFOnly: sorted(BPF_FEATURES),
  BPFIRQ: sorted([...BPF_FEATURES, ...IRQ_FEATURES]),
  CounterIRQCombined: sorted([...COUNTER_FEATURES, ...IRQ_FEATURES]),
  Basic: sorted([...COUNTER_FEATURES, ...BPF_FEATURES]),
  AcceleratorOnly: sorted(ACCELERATOR_FEATURES),
  IRQOnly: sorted(IRQ_FEATURES),
  CgroupOnly: sorted(CGROUP_FEATURES),
  KubeletOnly: sorted(KUBELET_FEATURES),
  GuestOSOnly: sorted(GUEST_OS_FEATURES),
  GuestOSPerf: sorted([...GUEST_OS_FEATURES, ...GUEST_PERF_FEATURES]),
};

/**
 * The sorted feature list of a group. ThirdParty is the user's metrics (sorted); the reference
 * builds it at runtime with update_thirdparty_metrics, which also appends them to WorkloadOnly; we
 * pass the metrics in explicitly and do the same.
 */
export function featuresOf(group: FeatureGroupName, thirdPartyMetrics: readonly string[] = []): readonly string[] {
  if (group === "ThirdParty") return sorted(thirdPartyMetrics);
  if (group === "WorkloadOnly" && thirdPartyMetrics.length > 0) return sorted([...WORKLOAD_FEATURES, ...thirdPartyMetrics]);
  return FIXED_GROUP_FEATURES[group];
}

const KNOWN_FEATURES: ReadonlySet<string> = new Set(Object.values(FIXED_GROUP_FEATURES).flat());

/** True for a feature of a fixed group; false for a third-party metric name. */
export function isKnownFeature(name: string): boolean {
  return KNOWN_FEATURES.has(name);
}

/** Parses a group name, throwing InvalidInputError naming `field` for an unknown one. */
export function assertFeatureGroup(name: string, field = "feature_group"): FeatureGroupName {
  if ((FEATURE_GROUP_NAMES as readonly string[]).includes(name)) return name as FeatureGroupName;
  throw new InvalidInputError(field, `unknown feature group "${name}" (known: ${FEATURE_GROUP_NAMES.join(", ")})`);
}

/**
 * Every reference group whose features are all in `available`, in the reference's dict order. With
 * third-party metrics, WorkloadOnly includes them and ThirdParty is listed last (the reference adds it
 * to its dict in update_thirdparty_metrics); without, ThirdParty is never listed.
 */
export function validFeatureGroups(
  available: readonly string[],
  thirdPartyMetrics: readonly string[] = [],
): ReferenceFeatureGroupName[] {
  const have = new Set(available);
  const groups = REFERENCE_FEATURE_GROUP_NAMES.filter((group) => group !== "ThirdParty" || thirdPartyMetrics.length > 0);
  return groups.filter((group) => featuresOf(group, thirdPartyMetrics).every((feature) => have.has(feature)));
}

/** The extra groups (IRQOnly, CgroupOnly, KubeletOnly) whose features are all in `available`, in that order. */
export function validExtraFeatureGroups(available: readonly string[]): ExtraFeatureGroupName[] {
  const have = new Set(available);
  return EXTRA_FEATURE_GROUP_NAMES.filter((group) => FIXED_GROUP_FEATURES[group].every((feature) => have.has(feature)));
}

/** The VM groups (GuestOSOnly, GuestOSPerf) whose features are all in `available`, in that order. */
export function validGuestFeatureGroups(available: readonly string[]): GuestFeatureGroupName[] {
  const have = new Set(available);
  return GUEST_FEATURE_GROUP_NAMES.filter((group) => FIXED_GROUP_FEATURES[group].every((feature) => have.has(feature)));
}

/**
 * Why Full is never valid for a recording (spec §1.2): the reference finds the valid groups among the
 * WorkloadOnly features only, so the system features node_info and cpu_scaling_frequency_hertz never
 * count (and Kepler exports `kepler_node_info`, not the `kepler_node_node_info` the reference reads).
 */
export const FULL_NEVER_VALID_REASON =
  "Full is never valid for a recording: as in the reference, the valid groups are found among the WorkloadOnly features only, so Full's system features node_info and cpu_scaling_frequency_hertz never count (Kepler exports kepler_node_info, not the kepler_node_node_info the reference reads); use WorkloadOnly";

/** The group whose sorted feature list equals the sorted input, or undefined (the reference's Unknown). */
export function featureGroupOf(features: readonly string[]): FeatureGroupName | undefined {
  const key = sorted(features).join(",");
  return (Object.keys(FIXED_GROUP_FEATURES) as Array<keyof typeof FIXED_GROUP_FEATURES>).find(
    (group) => FIXED_GROUP_FEATURES[group].join(",") === key,
  );
}

// main_feature(): the single feature the curve-fit trainers use (reference default_main_feature_map
// and default_dram_feature_map).
const MAIN_FEATURE: Partial<Record<FeatureGroupName, string>> = {
  Full: "cpu_instructions",
  WorkloadOnly: "cpu_instructions",
  CounterOnly: "cpu_instructions",
  CounterIRQCombined: "cpu_instructions",
  Basic: "cpu_instructions",
  BPFOnly: "bpf_cpu_time_ms",
  BPFIRQ: "bpf_cpu_time_ms",
  AcceleratorOnly: "accelerator_intel_qat",
  // Not in the reference's maps (it has no list for IRQOnly and dropped the other two): the CPU-time
  // feature, as the BPF groups use bpf_cpu_time_ms, and received packets for IRQOnly.
  IRQOnly: "bpf_net_rx_irq",
  CgroupOnly: "cgroupfs_cpu_usage_us",
  KubeletOnly: "kubelet_cpu_usage",
  GuestOSOnly: "guest_cpu_user_ratio",
  GuestOSPerf: "guest_cpu_instructions_per_second",
};
const DRAM_MAIN_FEATURE: Partial<Record<FeatureGroupName, string>> = {
  Full: "cache_miss",
  WorkloadOnly: "cache_miss",
  CounterOnly: "cache_miss",
  CounterIRQCombined: "cache_miss",
  Basic: "cache_miss",
  BPFOnly: "bpf_page_cache_hit",
  BPFIRQ: "bpf_page_cache_hit",
  CgroupOnly: "cgroupfs_memory_usage_bytes",
  KubeletOnly: "kubelet_memory_bytes",
  GuestOSOnly: "guest_page_faults_per_second",
  GuestOSPerf: "guest_page_faults_per_second",
};

/**
 * Index (into the group's sorted features) of the main feature for a component, as the reference's
 * main_feature(fg, component). Groups without a mapping (ThirdParty) use feature 0.
 */
export function mainFeatureIndex(
  group: FeatureGroupName,
  component: string,
  features: readonly string[] = featuresOf(group),
): number {
  const name = component === "dram" ? (DRAM_MAIN_FEATURE[group] ?? MAIN_FEATURE[group]) : MAIN_FEATURE[group];
  const index = name === undefined ? -1 : features.indexOf(name);
  return Math.max(index, 0);
}
