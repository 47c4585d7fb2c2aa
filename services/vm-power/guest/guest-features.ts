// Guest counters -> the GuestOSOnly / GuestOSPerf feature columns (services/domain/feature-groups.ts):
// per-second rates of every counter (wasm-core's counterToRate, each row's own step, resets read as
// Prometheus does), CPU seconds divided by the vCPU count into fractions of the VM's CPU time.
import { GUEST_OS_FEATURES, GUEST_PERF_FEATURES } from "../../domain/feature-groups.js";
import { counterToRate, divideOrZero, usedFraction } from "../../../wasm-core/src/index.js";
import type { GuestCounterName, GuestCounterSeries } from "./guest-counters.js";

// Feature -> the counter it is the rate of, and whether it is divided by the vCPU count.
const RATE_FEATURES: ReadonlyArray<readonly [feature: string, counter: GuestCounterName, perVcpu: boolean]> = [
  ["guest_context_switches_per_second", "context_switches", false],
  ["guest_cpu_iowait_ratio", "cpu_iowait_seconds", true],
  ["guest_cpu_irq_ratio", "cpu_irq_seconds", true],
  ["guest_cpu_steal_ratio", "cpu_steal_seconds", true],
  ["guest_cpu_system_ratio", "cpu_system_seconds", true],
  ["guest_cpu_user_ratio", "cpu_user_seconds", true],
  ["guest_disk_bytes_per_second", "disk_bytes", false],
  ["guest_interrupts_per_second", "interrupts", false],
  ["guest_major_page_faults_per_second", "major_page_faults", false],
  ["guest_network_bytes_per_second", "network_bytes", false],
  ["guest_page_faults_per_second", "page_faults", false],
  ["guest_cpu_cycles_per_second", "cpu_cycles", false],
  ["guest_cpu_instructions_per_second", "cpu_instructions", false],
];

/** Whether the series has what the perf group needs. */
export function hasPerfCounters(series: GuestCounterSeries): boolean {
  return series.counters.cpu_cycles !== undefined && series.counters.cpu_instructions !== undefined;
}

/**
 * The feature columns of a series (row 0 has no rate: NaN, as the extractor's first row), by feature
 * name: every GuestOSOnly feature, plus the perf features when the series has perf counters.
 */
export function guestFeatureColumns(series: GuestCounterSeries): Map<string, Float64Array> {
  const columns = new Map<string, Float64Array>();
  const wanted = new Set<string>([...GUEST_OS_FEATURES, ...(hasPerfCounters(series) ? GUEST_PERF_FEATURES : [])]);
  for (const [feature, counter, perVcpu] of RATE_FEATURES) {
    if (!wanted.has(feature)) continue;
    const values = series.counters[counter];
    if (values === undefined) throw new Error(`guest counters lack ${counter}`);
    const rates = counterToRate(series.timestampsSeconds, values, "prometheus");
    columns.set(feature, perVcpu ? divideOrZero(rates, series.vcpus) : rates);
  }
  columns.set("guest_memory_used_ratio", usedFraction(series.memoryAvailableBytes, series.memoryTotalBytes));
  return columns;
}
