// What a VM can see of its own activity: cumulative counters (CPU seconds per mode summed over its
// vCPUs, context switches, interrupts, page faults, disk and network bytes, perf counters where exposed)
// and two gauges (memory). The same snapshot comes from a node exporter (training, from Prometheus) or
// from the guest's /proc (the exporter), so both turn into features the same way (guest-features.ts).

/** The features' CPU modes: node exporter's and /proc/stat's, with nice counted as user and softirq as irq. */
export const GUEST_CPU_MODES = ["user", "system", "iowait", "steal", "irq"] as const;

/** Counter columns of a snapshot series, by name; every column has one value per timestamp. */
export const GUEST_COUNTER_NAMES = [
  "cpu_user_seconds",
  "cpu_system_seconds",
  "cpu_iowait_seconds",
  "cpu_steal_seconds",
  "cpu_irq_seconds",
  "context_switches",
  "interrupts",
  "page_faults",
  "major_page_faults",
  "disk_bytes",
  "network_bytes",
  "cpu_cycles",
  "cpu_instructions",
] as const;
export type GuestCounterName = (typeof GUEST_COUNTER_NAMES)[number];

/** One VM's counters over time (columns of equal length, timestamps ascending). */
export interface GuestCounterSeries {
  timestampsSeconds: Float64Array;
  /** Cumulative counters; cpu_cycles / cpu_instructions are absent when the VM has no perf counters. */
  counters: Partial<Record<GuestCounterName, Float64Array>>;
  memoryTotalBytes: Float64Array;
  memoryAvailableBytes: Float64Array;
  vcpus: number;
}
