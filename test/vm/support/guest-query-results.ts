// The guests' part of what vm-train's PromQL (vmQueries("vm", DEFAULT_VM_MAPPING)) answers, computed
// from a test bed's raw series without a Prometheus (the e2e test asks a real one): sums by instance,
// CPU seconds by feature_mode (nice as user, softirq as irq), vCPUs counted by their idle series.
import type { SavedResponseDocument } from "../../support/prometheus.js";
import type { QuerySeries, VmQueryResults } from "../../../services/vm-power/training/vm-training-table.js";

const FEATURE_MODE: Record<string, string> = { nice: "user", softirq: "irq" };
const SUMMED: Record<string, string> = {
  node_context_switches_total: "context_switches",
  node_intr_total: "interrupts",
  node_vmstat_pgfault: "page_faults",
  node_vmstat_pgmajfault: "major_page_faults",
  node_disk_read_bytes_total: "disk_bytes",
  node_disk_written_bytes_total: "disk_bytes",
  node_network_receive_bytes_total: "network_bytes",
  node_network_transmit_bytes_total: "network_bytes",
  node_memory_MemTotal_bytes: "memory_total_bytes",
  node_memory_MemAvailable_bytes: "memory_available_bytes",
  node_perf_cpucycles_total: "cpu_cycles",
  node_perf_instructions_total: "cpu_instructions",
};

/** The guest query keys' answers (see the file comment). */
export function guestQueryResults(response: SavedResponseDocument): VmQueryResults {
  const sums = new Map<string, { key: string; metric: Record<string, string>; values: Array<[number, number]> }>();
  const add = (
    key: string,
    metric: Record<string, string>,
    values: ReadonlyArray<readonly [number, string]>,
    each = (v: string) => Number(v),
  ) => {
    const id = `${key}|${JSON.stringify(metric)}`;
    let entry = sums.get(id);
    if (entry === undefined) {
      entry = { key, metric, values: values.map(([t]) => [t, 0]) };
      sums.set(id, entry);
    }
    values.forEach(([, v], i) => (entry.values[i]![1] += each(v)));
  };
  for (const [name, list] of Object.entries(response)) {
    for (const series of list) {
      const instance = series.metric.instance;
      if (instance === undefined) continue;
      if (name === "node_cpu_seconds_total") {
        const mode = series.metric.mode ?? "";
        add("cpu_seconds", { instance, feature_mode: FEATURE_MODE[mode] ?? mode }, series.values);
        if (mode === "idle") add("vcpus", { instance }, series.values, () => 1);
      } else if (SUMMED[name] !== undefined && !(name.startsWith("node_network") && series.metric.device === "lo"))
        add(SUMMED[name], { instance }, series.values);
    }
  }
  const results: VmQueryResults = {};
  for (const { key, metric, values } of sums.values())
    (results[key] ??= []).push({ metric, values: values.map(([t, v]) => [t, String(v)]) } satisfies QuerySeries);
  return results;
}
